;;; latency-report-tests.el --- the Lisp report equals emlat report  -*- lexical-binding: t -*-

;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; Run by tests/emacs/test_emacs_report.sh in the profiled Emacs, after
;; it has loaded a file setting `latency-report-tests-cases' to a list of
;; (NAME JSON FILES CAUSE IX-JSON): the output of `emlat report --json
;; FILES' in JSON, and for CAUSE (or nil) that of `--interaction CAUSE'
;; in IX-JSON.  Every number `latency-profile-summary' returns for FILES
;; is compared with the JSON document, field by field.
;;
;; Invariant: nothing here loads latency-report.el before the autoload
;; test has looked at it; it is loaded by calling the autoloaded command.

;;; Code:

(require 'ert)
(require 'json)
(require 'cl-lib)

(defvar latency-report-tests-cases)

;; Taken when this file is loaded, before any test runs.
(defconst latency-report-tests--autoloaded-at-start
  (and (fboundp 'latency-profile-report)
       (autoloadp (symbol-function 'latency-profile-report))))
(defconst latency-report-tests--loaded-at-start (featurep 'latency-report))

(defun latency-report-tests--json (file)
  "FILE parsed as JSON: objects as alists with symbol keys, arrays as lists."
  (let ((json-object-type 'alist)
        (json-array-type 'list)
        (json-key-type 'symbol)
        (json-false :false)
        (json-null nil))
    (json-read-file file)))

(defun latency-report-tests--get (obj &rest keys)
  "The value in JSON object OBJ under the symbols KEYS, one level each."
  (dolist (k keys obj)
    (setq obj (cdr (assq k obj)))))

(defun latency-report-tests--sym (name)
  "NAME, a JSON string, as the symbol the primitive uses (or nil)."
  (and name (intern (replace-regexp-in-string "_" "-" name))))

(defun latency-report-tests--bool (v)
  "JSON boolean V as t or nil."
  (and v (not (eq v :false)) t))

(defvar latency-report-tests--checked 0
  "How many values the comparison looked at.")

(defmacro latency-report-tests--same (lisp json what)
  "Assert that LISP equals JSON; WHAT names the value in a failure."
  `(let ((l ,lisp) (j ,json))
     (cl-incf latency-report-tests--checked)
     (unless (equal l j)
       (ert-fail (list 'differs ,what :lisp l :json j)))))

(defun latency-report-tests--alist (json)
  "The JSON object JSON as an alist keyed by primitive-style symbols."
  (mapcar (lambda (c)
            (cons (latency-report-tests--sym (symbol-name (car c))) (cdr c)))
          json))

(defun latency-report-tests--same-alist (lisp json what)
  "Assert that alist LISP has exactly the keys and values of JSON object."
  (latency-report-tests--same (length lisp) (length json) (list what 'length))
  (pcase-dolist (`(,k . ,v) (latency-report-tests--alist json))
    (latency-report-tests--same (alist-get k lisp) v (list what k))))

(defun latency-report-tests--same-dist (dist json what)
  "Compare the distribution plist DIST with its JSON object."
  (dolist (k '((:n . n) (:min . min) (:median . median) (:p90 . p90)
               (:p95 . p95) (:p99 . p99) (:p99.9 . p99_9) (:max . max)
               (:total . total)))
    (latency-report-tests--same (plist-get dist (car k))
                                (latency-report-tests--get json (cdr k))
                                (list what (car k))))
  ;; The mean is a double; JSON carries it in decimal.
  (let ((l (plist-get dist :mean)) (j (latency-report-tests--get json 'mean)))
    (cl-incf latency-report-tests--checked)
    (unless (if (and l j) (<= (abs (- l j)) (* 1e-9 (max 1.0 (abs j))))
              (and (null l) (null j)))
      (ert-fail (list 'differs what :mean l j)))))

(defun latency-report-tests--same-tail (tail json what)
  "Compare the waterfall plist TAIL with the `tail' object JSON."
  (if (null json)
      (latency-report-tests--same tail nil what)
    (cl-flet ((j (&rest keys) (apply #'latency-report-tests--get json keys)))
      (latency-report-tests--same (plist-get tail :reason)
                                  (latency-report-tests--sym (j 'reason))
                                  (list what :reason))
      (latency-report-tests--same (plist-get tail :metric)
                                  (latency-report-tests--sym (j 'metric))
                                  (list what :metric))
      (dolist (k '((:rank . rank) (:of . of) (:value . value_ns) (:cause . cause)
                   (:thread . thread) (:spans-error . spans_error)))
        (latency-report-tests--same (plist-get tail (car k)) (j (cdr k))
                                    (list what (car k))))
      (dolist (k '((:root-kind . root_kind) (:population . population)
                   (:status . status)))
        (latency-report-tests--same (plist-get tail (car k))
                                    (latency-report-tests--sym (j (cdr k)))
                                    (list what (car k))))
      (latency-report-tests--same-alist (plist-get tail :times) (j 'times)
                                        (list what :times))
      (latency-report-tests--same-alist (plist-get tail :metrics) (j 'metrics)
                                        (list what :metrics))
      (latency-report-tests--same (plist-get tail :axis)
                                  (cons (j 'axis 't0) (j 'axis 't1))
                                  (list what :axis))
      (let ((rows (plist-get tail :rows)) (jrows (j 'rows)) (i 0))
        (latency-report-tests--same (length rows) (length jrows)
                                    (list what :rows 'length))
        (cl-mapc
         (lambda (row jrow)
           (let ((w (list what :row i)))
             (latency-report-tests--same (plist-get row :type)
                                         (latency-report-tests--sym
                                          (cdr (assq 'type jrow)))
                                         w)
             (dolist (k '((:name . name) (:depth . depth) (:start . start_ns)
                          (:end . end_ns) (:thread . thread) (:id . id)
                          (:parent . parent)))
               (latency-report-tests--same (plist-get row (car k))
                                           (cdr (assq (cdr k) jrow))
                                           (append w (list (car k)))))
             (latency-report-tests--same (plist-get row :status)
                                         (latency-report-tests--sym
                                          (cdr (assq 'status jrow)))
                                         (append w '(:status))))
           (cl-incf i))
         rows jrows))
      (dolist (k '((:wall . wall_ns) (:main-cpu . main_cpu_ns)
                   (:cpu-window . cpu_window_ns)
                   (:measured-wait . measured_wait_ns)
                   (:wait-spans . wait_spans)
                   (:unknown-off-cpu . unknown_off_cpu_ns)
                   (:unknown-off-cpu-excess . unknown_off_cpu_excess_ns)
                   (:tty-emit . tty_emit_ns)))
        (latency-report-tests--same (plist-get (plist-get tail :split) (car k))
                                    (j 'split (cdr k)) (list what :split (car k))))
      (latency-report-tests--same-alist (plist-get tail :counters) (j 'counters)
                                        (list what :counters))
      (latency-report-tests--same-alist (plist-get tail :span-counters)
                                        (j 'span_counters)
                                        (list what :span-counters)))))

(defun latency-report-tests--compare (s json name)
  "Compare summary S with the `emlat report --json' document JSON."
  (cl-flet ((j (&rest keys) (apply #'latency-report-tests--get json keys))
            (same (l jv &rest what)
              (latency-report-tests--same l jv (cons name what))))
    (same (plist-get s :session) (j 'session) :session)
    (same (plist-get s :damaged) (latency-report-tests--bool (j 'damaged))
          :damaged)
    (same (length (plist-get s :files)) (length (j 'files)) :files)
    (cl-mapc (lambda (f jf)
               (same (plist-get f :path) (cdr (assq 'path jf)) :path)
               (same (plist-get f :stop)
                     (latency-report-tests--sym (cdr (assq 'stop jf))) :stop)
               (same (plist-get f :stop-offset) (cdr (assq 'stop_offset jf))
                     :stop-offset))
             (plist-get s :files) (j 'files))
    ;; Counts.
    (let ((c (plist-get s :interactions)))
      (dolist (k '((:total . total) (:flushed . flushed)
                   (:no-output . no_output) (:superseded . superseded)))
        (same (plist-get c (car k)) (j 'interactions (cdr k)) (car k)))
      (latency-report-tests--same-alist (plist-get c :by-status)
                                        (j 'interactions 'by_status)
                                        (list name :by-status))
      (latency-report-tests--same-alist (plist-get c :by-root-kind)
                                        (j 'interactions 'by_root_kind)
                                        (list name :by-root-kind)))
    (dolist (k '((:complete . complete) (:incomplete . incomplete)
                 (:orphan-ends . orphan_ends)))
      (same (plist-get (plist-get s :spans) (car k)) (j 'spans (cdr k)) (car k)))
    (same (plist-get s :input-batches) (j 'input_batches) :input-batches)
    ;; Every group, every metric, every quantile.
    (let ((groups (plist-get s :groups)) (jgroups (j 'groups)))
      (same (length groups) (length jgroups) :groups)
      (cl-mapc
       (lambda (g jg)
         (cl-flet ((gj (k) (cdr (assq k jg))))
           (let ((what (list name (plist-get g :root-kind)
                             (plist-get g :population))))
             (same (plist-get g :root-kind)
                   (latency-report-tests--sym (gj 'root_kind)) :root-kind)
             (same (plist-get g :population)
                   (latency-report-tests--sym (gj 'population)) :population)
             (same (plist-get g :interactions) (gj 'interactions) what)
             (same (plist-get g :primary-metric)
                   (latency-report-tests--sym (gj 'primary_metric)) what)
             (same (length (plist-get g :metrics)) (length (gj 'metrics)) what)
             (pcase-dolist (`(,m . ,jd) (gj 'metrics))
               (latency-report-tests--same-dist
                (alist-get (latency-report-tests--sym (symbol-name m))
                           (plist-get g :metrics))
                jd (append what (list m))))
             (latency-report-tests--same-alist (plist-get g :inverted)
                                               (gj 'inverted)
                                               (append what '(:inverted)))
             (latency-report-tests--same-alist (plist-get g :clamped)
                                               (gj 'clamped)
                                               (append what '(:clamped))))))
       groups jgroups))
    ;; The work by name (a names session only).
    (let ((names (plist-get s :names)) (jn (j 'names)))
      (if (null jn)
          (same names nil :names)
        (cl-flet ((nj (k) (cdr (assq k jn))))
          (same (plist-get names :policy) (latency-report-tests--sym (nj 'policy))
                :names-policy)
          (same (plist-get names :metric) (latency-report-tests--sym (nj 'metric))
                :names-metric)
          (same (plist-get names :named) (nj 'named) :named)
          (same (plist-get names :unnamed) (nj 'unnamed) :unnamed)
          (same (length (plist-get names :groups)) (length (nj 'groups))
                :name-groups)
          (cl-mapc
           (lambda (g jg)
             (cl-flet ((gj (k) (cdr (assq k jg))))
               (let ((what (list name :names (plist-get g :root-kind)
                                 (plist-get g :name))))
                 (same (plist-get g :root-kind)
                       (latency-report-tests--sym (gj 'root_kind)) what)
                 (same (plist-get g :name) (gj 'name) what)
                 (same (plist-get g :interactions) (gj 'interactions) what)
                 (same (plist-get g :slowest-cause) (gj 'slowest_cause) what)
                 (latency-report-tests--same-dist (plist-get g :dist) (gj 'dist)
                                                  what))))
           (plist-get names :groups) (nj 'groups)))))
    ;; The slowest interactions (and their names) and the tail.
    (let ((slow (plist-get s :slowest)))
      (same (plist-get slow :metric)
            (latency-report-tests--sym (j 'slowest 'metric)) :slowest)
      (same (plist-get slow :interactions)
            (mapcar (lambda (o) (cons (cdr (assq 'cause o))
                                      (cdr (assq 'value_ns o))))
                    (j 'slowest 'interactions))
            :slowest)
      (same (plist-get slow :names)
            (delq nil (mapcar (lambda (o)
                                (and (cdr (assq 'name o))
                                     (cons (cdr (assq 'cause o))
                                           (cdr (assq 'name o)))))
                              (j 'slowest 'interactions)))
            :slowest-names))
    (latency-report-tests--same-tail (plist-get s :tail) (j 'tail)
                                     (list name :tail))
    ;; Overhead.
    (pcase-dolist (`(,k . ,v) (latency-report-tests--alist (j 'overhead)))
      (cond ((memq k '(final-stats writer-in-driver))
             (same (alist-get k (plist-get s :overhead))
                   (latency-report-tests--bool v) k))
            ((floatp v)
             (let ((l (alist-get k (plist-get s :overhead))))
               (cl-incf latency-report-tests--checked)
               (should (<= (abs (- l v)) (* 1e-9 (max 1.0 (abs v)))))))
            (t (same (alist-get k (plist-get s :overhead)) v k))))
    (same (length (plist-get s :overhead)) (length (j 'overhead)) :overhead)
    ;; Losses.
    (let ((l (plist-get s :losses)))
      (dolist (k '((:loss-records . loss_records) (:lost-records . lost_records)
                   (:lost-bytes . lost_bytes)))
        (same (plist-get l (car k)) (j 'losses (cdr k)) (car k)))
      (same (length (plist-get l :intervals)) (length (j 'losses 'intervals))
            :intervals)
      (cl-mapc
       (lambda (i ji)
         (dolist (k '((:stream . stream) (:first . first_ns) (:last . last_ns)
                      (:records . records) (:bytes . bytes) (:file . file)
                      (:offset . offset)))
           (same (plist-get i (car k)) (cdr (assq (cdr k) ji)) :loss (car k)))
         (same (plist-get i :reason)
               (latency-report-tests--sym (cdr (assq 'reason ji))) :loss-reason))
       (plist-get l :intervals) (j 'losses 'intervals)))
    ;; Unavailable boundaries.
    (pcase-dolist (`(,pop . ,ju) (latency-report-tests--alist (j 'unavailable)))
      (let ((u (alist-get pop (plist-get s :unavailable))))
        (same (plist-get u :interactions) (cdr (assq 'interactions ju))
              :unavailable pop)
        (latency-report-tests--same-alist (plist-get u :missing)
                                          (cdr (assq 'missing ju))
                                          (list name :missing pop))))
    (same (mapcar (lambda (d) (plist-get d :kind)) (plist-get s :diagnostics))
          (mapcar (lambda (d) (latency-report-tests--sym (cdr (assq 'kind d))))
                  (j 'diagnostics))
          :diagnostics)))

(ert-deftest latency-report-autoloaded ()
  "The command is an autoload in the dump; its code is not preloaded."
  (should latency-report-tests--autoloaded-at-start)
  (should-not latency-report-tests--loaded-at-start)
  (should (fboundp 'latency-profile-summary))
  (should (subrp (symbol-function 'latency-profile-summary)))
  ;; The options are preloaded through their cookies.
  (should (custom-variable-p 'latency-profile-start-at-startup))
  (should (custom-variable-p 'latency-profile-input-observer))
  (should (custom-variable-p 'latency-profile-directory))
  (should (member "latency-report" (get 'latency-profile 'custom-loads))))

(ert-deftest latency-report-summary-equals-emlat-report ()
  "Every number of the summary equals `emlat report --json'."
  (should latency-report-tests-cases)
  (pcase-dolist (`(,name ,json ,files ,_cause ,_ix) latency-report-tests-cases)
    (let ((before latency-report-tests--checked)
          (s (latency-profile-summary files)))
      (latency-report-tests--compare s (latency-report-tests--json json) name)
      ;; A single file may be given as a string.
      (when (= (length files) 1)
        (should (equal (latency-profile-summary (car files)) s)))
      (message "compared: %s: %d values equal" name
               (- latency-report-tests--checked before)))))

(ert-deftest latency-report-requested-interaction ()
  "CAUSE selects the waterfall `emlat report --interaction' shows."
  (pcase-dolist (`(,name ,_json ,files ,cause ,ix) latency-report-tests-cases)
    (when cause
      (let ((s (latency-profile-summary files cause)))
        (should (eq (plist-get (plist-get s :tail) :reason) 'requested))
        (should (equal (plist-get (plist-get s :tail) :cause) cause))
        (latency-report-tests--same-tail
         (plist-get s :tail)
         (latency-report-tests--get (latency-report-tests--json ix) 'tail)
         (list name :requested cause))))))

(ert-deftest latency-report-buffer ()
  "The command shows the four reports of the profile in a special buffer."
  (pcase-dolist (`(,name ,_json ,files ,_cause ,_ix) latency-report-tests-cases)
    (let* ((buffer (latency-profile-report files))
           (s (latency-profile-summary files))
           (tail (plist-get s :tail)))
      (with-current-buffer buffer
        (should (eq major-mode 'latency-report-mode))
        (should (derived-mode-p 'special-mode))
        (should buffer-read-only)
        (let ((text (buffer-string)))
          (dolist (h '("1. Latency distributions"
                       "2. Tail interaction waterfall"
                       "3. Redisplay work and terminal output"
                       "4. Overhead, loss and unavailable boundaries"))
            (should (string-match-p (regexp-quote h) text)))
          ;; Section 1: the counts and the three populations, "1
          ;; interaction" but "2 interactions".
          (let ((c (plist-get s :interactions)))
            (should (string-match-p
                     (format "%d interactions?: %d flushed, %d no output, %d superseded"
                             (plist-get c :total) (plist-get c :flushed)
                             (plist-get c :no-output) (plist-get c :superseded))
                     text)))
          (dolist (g (plist-get s :groups))
            (let ((n (plist-get g :interactions)))
              (should (string-match-p
                       (format "%s, %s: %d interaction%s\\b"
                               (replace-regexp-in-string
                                "-" " " (symbol-name (plist-get g :root-kind)))
                               (replace-regexp-in-string
                                "-" " " (symbol-name (plist-get g :population)))
                               n (if (= n 1) "" "s"))
                       text))))
          (should-not (string-match-p "\\b1 interactions" text))
          ;; The work by name: every group, with its count, and a name
          ;; that is a button showing its slowest interaction.
          (let ((names (plist-get s :names)))
            (should (eq (and names t)
                        (and (string-match-p "^Work by name$" text) t)))
            (dolist (g (plist-get names :groups))
              (should (string-match-p
                       (format "%s +%d "
                               (regexp-quote
                                (truncate-string-to-width
                                 (or (plist-get g :name) "(unnamed)") 32))
                               (plist-get g :interactions))
                       text))))
          ;; The slowest interactions: each cause id a button.
          (dolist (o (let ((l (plist-get (plist-get s :slowest) :interactions)))
                       (cl-subseq l 0 (min 10 (length l)))))
            (should (string-match-p (format "^ +%d +%s" (car o)
                                            (regexp-quote
                                             (latency-report--dur (cdr o))))
                                    text)))
          ;; Section 2: the tail, its rank and one bar per row.
          (when tail
            (should (string-match-p (format "Interaction %d (" (plist-get tail :cause))
                                    text))
            (should (string-match-p (format "rank %d of %d"
                                            (plist-get tail :rank)
                                            (plist-get tail :of))
                                    text))
            (should (= (how-many "^  .*|[ =~<]+| " (point-min) (point-max))
                       (length (plist-get tail :rows))))
            (when (assq 'input-uncertainty-ns (plist-get tail :metrics))
              (should (string-match-p "arrival interval" text)))
            ;; Section 3: the CPU window, shown when it is not the wall
            ;; time (an Emacs profile: read at the interaction's end).
            (let* ((split (plist-get tail :split))
                   (window (plist-get split :cpu-window)))
              (should (eq (and window
                               (not (eql window (plist-get split :wall)))
                               t)
                          (and (string-match-p "^  dispatch to end " text)
                               t)))))
          ;; Section 4: the loss count.
          (should (string-match-p
                   (format "Loss: %d loss records"
                           (plist-get (plist-get s :losses) :loss-records))
                   text)))
        ;; g reads the profile again and shows the same text.
        (let ((before (buffer-string)))
          (revert-buffer)
          (should (equal (buffer-string) before)))
        ;; A cause id button shows that interaction's waterfall; a name
        ;; button its slowest interaction's.
        (let ((slow (plist-get (plist-get s :slowest) :interactions)))
          (when (cdr slow)
            (goto-char (point-min))
            (let ((want (car (nth 1 slow))) button)
              (while (and (not button) (setq button (forward-button 1 nil nil t)))
                (unless (equal (button-get button 'latency-report-cause) want)
                  (setq button nil)))
              (should button)
              (push-button (button-start button))
              (should (string-match-p (format "^Interaction %d (.*), as requested$" want)
                                      (buffer-string)))
              (latency-report-tail))))
        (let ((g (car (plist-get (plist-get s :names) :groups))))
          (when (plist-get g :slowest-cause)
            (goto-char (point-min))
            (re-search-forward (regexp-quote (truncate-string-to-width
                                              (or (plist-get g :name) "(unnamed)")
                                              32)))
            (push-button (match-beginning 0))
            (should (string-match-p (format "^Interaction %d (.*), as requested$"
                                            (plist-get g :slowest-cause))
                                    (buffer-string)))
            (latency-report-tail)))
        (message "compared: %s: report buffer of %d lines" name
                 (count-lines (point-min) (point-max)))))))

(ert-deftest latency-report-errors ()
  "Unreadable files, non-profiles and unknown interactions are errors."
  (let ((dir (make-temp-file "latency-report-tests" t)))
    (unwind-protect
        (let ((missing (expand-file-name "missing.emlat" dir))
              (junk (expand-file-name "junk.emlat" dir)))
          (should-error (latency-profile-summary missing) :type 'file-error)
          (with-temp-file junk (insert "this is not a profile\n"))
          (should-error (latency-profile-summary junk))
          (should-error (latency-profile-summary nil) :type 'wrong-type-argument)
          (should-error (latency-profile-summary 42) :type 'wrong-type-argument)
          (let ((files (nth 2 (car latency-report-tests-cases))))
            (should-error (latency-profile-summary files -1)
                          :type 'args-out-of-range)
            (should-error (latency-profile-summary files (expt 2 62)))))
      (delete-directory dir t))))

(ert-deftest latency-report-durations ()
  "Durations are written as `emlat report' writes them (report_fmt_dur)."
  (require 'latency-report)
  (should (equal (latency-report--dur nil) "-"))
  (should (equal (latency-report--dur 850) "850ns"))
  (should (equal (latency-report--dur 12345) "12.3us"))
  (should (equal (latency-report--dur 1200000) "1.20ms"))
  (should (equal (latency-report--dur 153000000) "153ms"))
  (should (equal (latency-report--dur 999499) "999us"))
  (should (equal (latency-report--dur 999500) "1.00ms"))
  (should (equal (latency-report--dur 2050000000) "2.05s"))
  (dolist (ns '(0 999 1000 9999 99999 999999 9999999 99999999 999999999))
    (should (<= (length (latency-report--dur ns)) 7))))

(ert-deftest latency-report-bars ()
  "An interval is drawn where it lies on the axis; before it, with `<'."
  (require 'latency-report)
  (should (equal (latency-report--bar 0 50 0 100 10 ?=) "=====     "))
  (should (equal (latency-report--bar 50 100 0 100 10 ?~) "     ~~~~~"))
  ;; A zero-length event still shows one column.
  (should (equal (latency-report--bar 100 100 0 100 10 ?=) "         ="))
  ;; An arrival interval that began before the axis is clipped.
  (should (equal (latency-report--bar -50 20 0 100 10 ?~) "<~        ")))

(provide 'latency-report-tests)
;;; latency-report-tests.el ends here
