;;; latency-report.el --- show interaction latency profiles  -*- lexical-binding: t -*-

;; SPDX-License-Identifier: GPL-3.0-or-later
;; Copyright (C) 2025 the emlat authors.

;; Keywords: tools, maint

;; This file is part of GNU Emacs.

;; GNU Emacs is free software: you can redistribute it and/or modify
;; it under the terms of the GNU General Public License as published by
;; the Free Software Foundation, either version 3 of the License, or
;; (at your option) any later version.

;; GNU Emacs is distributed in the hope that it will be useful,
;; but WITHOUT ANY WARRANTY; without even the implied warranty of
;; MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
;; GNU General Public License for more details.

;; You should have received a copy of the GNU General Public License
;; along with GNU Emacs.  If not, see <https://www.gnu.org/licenses/>.

;;; Commentary:

;; `M-x latency-profile-start' starts recording an interaction latency
;; profile into a new file, `M-x latency-profile-report' shows the
;; profile being recorded (with a prefix argument, or when none is,
;; another one) and `M-x latency-profile-stop' ends the recording, as
;; `profiler-start', `profiler-report' and `profiler-stop' do for the
;; Lisp profiler.  The report buffer shows the profile in four sections:
;;
;;  1. the distributions of each latency metric, per root kind, split
;;     into interactions whose output was flushed, interactions without
;;     output and interactions whose redisplay was superseded;
;;  2. the waterfall of one tail interaction, with the interval in
;;     which its input arrived;
;;  3. the redisplay work and terminal bytes of that interaction, and
;;     the split of its wall time;
;;  4. the profiler's overhead, its losses and the boundaries that were
;;     not recorded;
;;
;; and, for a profile recorded under the names policy
;; (`latency-profile-names'), the work of each command, timer function
;; and process by name, between sections 1 and 2.  Cause ids and names
;; are buttons that show the waterfall of that interaction (of a name:
;; its slowest one); `g' reads the profile again.
;;
;; The numbers come from the primitive `latency-profile-summary', which
;; computes them with the same library code as `emlat report', so both
;; always agree.  This file only lays them out.  It is loaded when a
;; profile is opened; only the options and the start-up hook below are
;; preloaded (through their autoload cookies).  The `:version' of the
;; options is that of the Emacs the file is built into (emlat's
;; emacs/build.sh sets it).

;;; Code:

(require 'cl-lib)

(declare-function latency-profile-summary "latencysum.c" (files &optional cause))
(declare-function latency-profile-status "latency.c" ())
(declare-function latency-profile-start "latency.c" (&optional file))

;;;; Options

;;;###autoload
(defgroup latency-profile nil
  "Interaction latency profiles of this Emacs.
A latency profile records, for each key sequence, timer, process
filter or sentinel, how long Emacs took from the input to the
output on the terminal, and where that time went."
  :group 'development
  :prefix "latency-profile-"
  :link '(info-link "(latency)Top"))

;;;###autoload
(defcustom latency-profile-directory nil
  "Directory for latency profiles started without a file name.
If nil, `temporary-file-directory' is used."
  :type '(choice (const :tag "Temporary directory" nil) directory)
  :group 'latency-profile
  :version "28.2")

;;;###autoload
(defcustom latency-profile-start-at-startup nil
  "Non-nil means start a latency profile when Emacs starts on a terminal.
The profile is written to a new file in `latency-profile-directory'.
This has the effect of the command-line option `--latency-profile',
from the moment the startup hooks run."
  :type 'boolean
  :group 'latency-profile
  :version "28.2")

;;;###autoload
(defcustom latency-profile-input-observer nil
  "Non-nil means a latency profile watches terminal input from a thread.
The observer notes when input first became readable while Emacs was
busy, which bounds the arrival of a key more tightly.  It applies to
profiles started afterwards and stops itself if it uses more than 1%
of a CPU."
  :type 'boolean
  :group 'latency-profile
  :version "28.2")

;;;###autoload
(defcustom latency-profile-names nil
  "Non-nil means a latency profile records the names of its work.
A profile started while this is non-nil names the command of each key
sequence, the function of each timer, the process of each process
filter and sentinel, and each function that the command loop's hooks
run, so that its report can say which command was slow.  Each name is
stored once in the profile, whose privacy policy then says \"names\".
Names can reveal which packages and commands you use; the profile holds
no other text either way.  The command-line option
`--latency-profile-names' sets this at startup."
  :type 'boolean
  :group 'latency-profile
  :version "28.2")

;;;###autoload
(defcustom latency-profile-thread-cpu t
  "Non-nil means a latency profile records each interaction's CPU time.
The main thread's CPU clock is then read when an interaction begins
and when it ends, from which the report splits its time into CPU time
and time off the CPU.  Each reading is a system call; nil saves the
two per interaction, and the profile then holds no CPU time.  It
applies to the interactions that begin afterwards."
  :type 'boolean
  :group 'latency-profile
  :version "28.2")

;; Copied into loaddefs.el as it is, so that starting up does not load
;; the report code below.
;;;###autoload
(defalias 'latency-profile--start-at-startup
  (lambda ()
    "Start a latency profile if `latency-profile-start-at-startup' says so."
    (when (and latency-profile-start-at-startup
               (not noninteractive)
               (eq (framep (selected-frame)) t)
               (fboundp 'latency-profile-start)
               (not (plist-get (latency-profile-status) :active)))
      (condition-case err
          (latency-profile-start)
        (error (display-warning 'latency-profile
                                (error-message-string err)))))))

;;;###autoload
(add-hook 'emacs-startup-hook #'latency-profile--start-at-startup)

(defface latency-report-heading '((t :inherit bold))
  "Face of the section headings of a latency report."
  :group 'latency-profile
  :version "28.2")

(defcustom latency-report-max-diagnostics 20
  "How many of the reader's diagnostics a latency report lists."
  :type 'natnum
  :group 'latency-profile
  :version "28.2")

(defcustom latency-report-bar-width 40
  "Width in columns of the time axis of the waterfall."
  :type 'natnum
  :group 'latency-profile
  :version "28.2")

;;;; Formatting

(defun latency-report--dur (ns)
  "Format the duration NS (nanoseconds) as `emlat report' does.
\"850ns\", \"12.3us\", \"1.20ms\", \"153ms\", \"2.05s\": three
significant digits, at most 7 characters below 1000 s.  Return \"-\"
if NS is nil."
  (if (null ns) "-"
    (if (< ns 1000) (format "%dns" ns)
      (let ((units '((1e3 . "us") (1e6 . "ms") (1e9 . "s")))
            result)
        (while (not result)
          (let ((v (/ ns (caar units))))
            ;; Move on to the next unit when this one would print 1000.
            (if (and (>= v 999.5) (cdr units))
                (setq units (cdr units))
              (setq result
                    (format (cond ((< v 9.995) "%.2f%s")
                                  ((< v 99.95) "%.1f%s")
                                  (t "%.0f%s"))
                            v (cdar units))))))
        result))))

(defun latency-report--count (n singular &optional plural)
  "\"N SINGULAR\", or \"N PLURAL\" (SINGULAR with an s) unless N is 1."
  (format "%d %s" n (if (eql n 1) singular (or plural (concat singular "s")))))

(defun latency-report--name (symbol)
  "The name of SYMBOL with hyphens as spaces, or \"-\" if nil."
  (if symbol (replace-regexp-in-string "-" " " (symbol-name symbol)) "-"))

(defun latency-report--heading (text)
  "Insert TEXT as a section heading."
  (insert "\n" (propertize text 'face 'latency-report-heading
                           'latency-report-section text)
          "\n" (make-string (length text) ?=) "\n"))

(defun latency-report--column (ns t0 t1 width)
  "Column of time NS on an axis from T0 to T1 of WIDTH columns."
  (if (<= t1 t0) 0
    (max 0 (min width (round (* width (/ (float (- ns t0)) (- t1 t0))))))))

(defun latency-report--bar (start end t0 t1 width char)
  "A string of WIDTH columns drawing START..END on the axis T0..T1 with CHAR.
A row that starts before T0 is drawn from the first column with a `<'."
  (let* ((a (latency-report--column start t0 t1 width))
         (b (max (1+ a) (latency-report--column (or end start) t0 t1 width)))
         (b (min b width))
         (a (min a (1- width)))
         (s (concat (make-string a ?\s) (make-string (- b a) char)
                    (make-string (- width b) ?\s))))
    (when (< start t0)
      (aset s 0 ?<))
    s))

;;;; The four sections

(defconst latency-report--quantiles
  '((:n . "n") (:min . "min") (:median . "median") (:p90 . "p90")
    (:p95 . "p95") (:p99 . "p99") (:p99.9 . "p99.9") (:max . "max")
    (:mean . "mean"))
  "The columns of a distribution table: plist key and heading.")

(defun latency-report--distributions (summary)
  "Insert the distributions of SUMMARY, per root kind and population."
  (latency-report--heading "1. Latency distributions")
  (let ((counts (plist-get summary :interactions)))
    (insert (format "%s: %d flushed, %d no output, %d superseded\n"
                    (latency-report--count (plist-get counts :total)
                                           "interaction")
                    (plist-get counts :flushed)
                    (plist-get counts :no-output)
                    (plist-get counts :superseded))))
  (insert "Exact nearest-rank quantiles; `-' means no value.\n")
  (dolist (group (plist-get summary :groups))
    (insert (format "\n%s, %s: %s%s\n"
                    (latency-report--name (plist-get group :root-kind))
                    (latency-report--name (plist-get group :population))
                    (latency-report--count (plist-get group :interactions)
                                           "interaction")
                    (if (plist-get group :primary-metric)
                        (format " (leading metric: %s)"
                                (plist-get group :primary-metric))
                      "")))
    (insert (format "  %-26s" "metric"))
    (dolist (q latency-report--quantiles)
      (insert (format " %7s" (cdr q))))
    (insert "\n")
    (pcase-dolist (`(,metric . ,dist) (plist-get group :metrics))
      (when (> (plist-get dist :n) 0)
        (insert (propertize (format "  %-26s" metric)
                            'latency-report-metric metric))
        (dolist (q latency-report--quantiles)
          (let ((v (plist-get dist (car q))))
            (insert (format " %7s"
                            (cond ((eq (car q) :n) v)
                                  ((floatp v) (latency-report--dur (round v)))
                                  (t (latency-report--dur v)))))))
        (insert "\n")))
    (let ((inverted (plist-get group :inverted)))
      (when inverted
        (insert (format "  reversed boundaries (not computed): %s\n"
                        (mapconcat (lambda (c) (format "%s %d" (car c) (cdr c)))
                                   inverted ", ")))))))

(defun latency-report--cause-button (cause &optional label)
  "Insert a button labelled LABEL (default CAUSE) showing CAUSE's waterfall."
  (insert-text-button (or label (number-to-string cause))
                      'latency-report-cause cause
                      'action #'latency-report--button-action
                      'follow-link t
                      'help-echo (format "Show the waterfall of interaction %d"
                                         cause)))

(defun latency-report--button-action (button)
  "Show the waterfall of the interaction of BUTTON."
  (latency-report-interaction (button-get button 'latency-report-cause)))

(defun latency-report--names (summary)
  "Insert the work by name of SUMMARY, if its profile records names."
  (let ((names (plist-get summary :names)))
    (when names
      (latency-report--heading "Work by name")
      (insert (format "Privacy policy: names; %s named, %d unnamed; %s per \
interaction.\nA name shows the waterfall of its slowest interaction.\n\n"
                      (latency-report--count (plist-get names :named)
                                             "interaction")
                      (plist-get names :unnamed)
                      (plist-get names :metric)))
      (insert (format "  %-18s %-32s %7s %9s %9s %9s %9s %9s\n" "root kind"
                      "name" "n" "median" "p90" "p99" "max" "total"))
      (dolist (g (plist-get names :groups))
        (let* ((d (plist-get g :dist))
               (name (or (plist-get g :name) "(unnamed)"))
               (shown (truncate-string-to-width name 32))
               (slowest (plist-get g :slowest-cause)))
          (insert (format "  %-18s "
                          (latency-report--name (plist-get g :root-kind))))
          (if slowest
              (latency-report--cause-button slowest shown)
            (insert shown))
          (insert (make-string (max 0 (- 32 (string-width shown))) ?\s))
          (insert (format " %7d %9s %9s %9s %9s %9s\n"
                          (plist-get g :interactions)
                          (latency-report--dur (plist-get d :median))
                          (latency-report--dur (plist-get d :p90))
                          (latency-report--dur (plist-get d :p99))
                          (latency-report--dur (plist-get d :max))
                          (latency-report--dur (plist-get d :total)))))))))

(defun latency-report--slowest (summary)
  "Insert the slowest interactions of SUMMARY, each a button."
  (let* ((slow (plist-get summary :slowest))
         (items (plist-get slow :interactions))
         (names (plist-get slow :names)))
    (when items
      (insert (format "Slowest interactions by %s (a cause id shows its \
waterfall):\n" (plist-get slow :metric)))
      (pcase-dolist (`(,cause . ,value) (cl-subseq items 0 (min 10 (length items))))
        (insert "  ")
        (latency-report--cause-button cause (format "%12d" cause))
        (insert (format " %9s%s\n" (latency-report--dur value)
                        (let ((name (alist-get cause names)))
                          (if name (concat "  " name) "")))))
      (insert "\n"))))

(defun latency-report--waterfall (summary)
  "Insert the waterfall of SUMMARY's tail interaction."
  (latency-report--heading "2. Tail interaction waterfall")
  (latency-report--slowest summary)
  (let ((tail (plist-get summary :tail)))
    (if (not tail)
        (insert "No interaction has a latency metric.\n")
      (insert (format "Interaction %d (%s, %s, status %s)"
                      (plist-get tail :cause)
                      (latency-report--name (plist-get tail :root-kind))
                      (latency-report--name (plist-get tail :population))
                      (plist-get tail :status)))
      (if (eq (plist-get tail :reason) 'tail)
          (insert (format ": %s = %s, rank %d of %d (nearest-rank p99)\n"
                          (plist-get tail :metric)
                          (latency-report--dur (plist-get tail :value))
                          (plist-get tail :rank) (plist-get tail :of)))
        (insert ", as requested\n"))
      (let* ((axis (plist-get tail :axis))
             (t0 (car axis)) (t1 (cdr axis))
             (width latency-report-bar-width)
             (input (alist-get 'input-uncertainty-ns (plist-get tail :metrics))))
        (insert (format "Axis: %s from the first drawn event; idle before \
arrival (input arrival uncertainty) %s\n\n"
                        (latency-report--dur (- t1 t0))
                        (latency-report--dur input)))
        (insert (format "  %-24s |%s| %9s %9s %s\n" "row"
                        (make-string width ?-) "start" "duration" "status"))
        (dolist (row (plist-get tail :rows))
          (let* ((type (plist-get row :type))
                 (inputp (memq type '(input first-input)))
                 (start (plist-get row :start))
                 (end (plist-get row :end))
                 (name (concat (make-string (* 2 (plist-get row :depth)) ?\s)
                               (plist-get row :name)
                               (if (and (eq type 'span)
                                        (not (equal (plist-get row :thread)
                                                    (plist-get tail :thread))))
                                   (format "@%d" (plist-get row :thread))
                                 ""))))
            (insert (format "  %-24s |%s| %9s %9s %s\n"
                            (truncate-string-to-width name 24)
                            (latency-report--bar start end t0 t1 width
                                                 (if inputp ?~ ?=))
                            (if (< start t0)
                                (concat "-" (latency-report--dur (- t0 start)))
                              (latency-report--dur (- start t0)))
                            (if end (latency-report--dur (- end start)) "open")
                            (cond (inputp "arrival interval")
                                  ((eq type 'phase) "phase")
                                  (t (or (plist-get row :status) "")))))))
        (when (plist-get tail :spans-error)
          (insert (format "Spans could not be read: %s\n"
                          (plist-get tail :spans-error))))))))

(defun latency-report--work (summary)
  "Insert the wall-time split, redisplay work and TTY bytes of the tail."
  (latency-report--heading "3. Redisplay work and terminal output")
  (let ((tail (plist-get summary :tail)))
    (if (not tail)
        (insert "No tail interaction.\n")
      (let ((split (plist-get tail :split)))
        (insert (format "Interaction %d\n" (plist-get tail :cause)))
        (dolist (part `((:wall . "wall time")
                        (:main-cpu . "main-thread CPU")
                        ;; The interval the CPU readings lie in, when it
                        ;; is not the wall time: the waits and the rest
                        ;; are of it.
                        ,@(let ((window (plist-get split :cpu-window)))
                            (and window
                                 (not (eql window (plist-get split :wall)))
                                 '((:cpu-window . "dispatch to end"))))
                        (:measured-wait . "measured waits")
                        (:unknown-off-cpu . "unknown off-CPU")
                        (:tty-emit . "TTY emission")))
          (insert (format "  %-18s %9s\n" (cdr part)
                          (latency-report--dur (plist-get split (car part))))))
        (let ((excess (plist-get split :unknown-off-cpu-excess)))
          (when (and excess (> excess 0))
            (insert (format "  (CPU and waits exceed their interval by %s)\n"
                            (latency-report--dur excess))))))
      (let ((counters (plist-get tail :counters))
            (span-counters (plist-get tail :span-counters)))
        (if (not (or counters span-counters))
            (insert "No redisplay or output counters were recorded.\n")
          (insert (format "\n  %-24s %12s %12s\n" "counter" "interaction"
                          "its spans"))
          (dolist (name (delete-dups (append (mapcar #'car counters)
                                             (mapcar #'car span-counters))))
            (insert (format "  %-24s %12s %12s\n" name
                            (or (alist-get name counters) "-")
                            (or (alist-get name span-counters) "-")))))))))

(defun latency-report--overhead (summary)
  "Insert the overhead, losses and unavailable boundaries of SUMMARY."
  (latency-report--heading "4. Overhead, loss and unavailable boundaries")
  (let ((o (plist-get summary :overhead)))
    (pcase-dolist (`(,name . ,value) o)
      (insert (format "  %-24s %s\n" name
                      (cond ((null value) "not recorded")
                            ((eq value t) "yes")
                            ((floatp value) (format "%.4f" value))
                            ((string-suffix-p "-ns" (symbol-name name))
                             (latency-report--dur value))
                            (t value))))))
  (let* ((losses (plist-get summary :losses))
         (intervals (plist-get losses :intervals)))
    (insert (format "\nLoss: %d loss records, %d records and %d bytes lost\n"
                    (plist-get losses :loss-records)
                    (plist-get losses :lost-records)
                    (plist-get losses :lost-bytes)))
    (dolist (l intervals)
      (insert (format "  stream %d %s: %d records, %d bytes, over %s\n"
                      (plist-get l :stream) (plist-get l :reason)
                      (plist-get l :records) (plist-get l :bytes)
                      (latency-report--dur (- (plist-get l :last)
                                              (plist-get l :first)))))))
  (insert (format "\nReading: %s\n"
                  (if (plist-get summary :damaged)
                      "data was lost (damaged or missing file)"
                    "complete")))
  (let* ((diags (plist-get summary :diagnostics))
         (n (length diags)))
    (dolist (d (cl-subseq diags 0 (min n latency-report-max-diagnostics)))
      (insert (format "  %s\n" (plist-get d :message))))
    (when (> n latency-report-max-diagnostics)
      (insert (format "  ... and %d more\n" (- n latency-report-max-diagnostics)))))
  (insert "\nUnavailable boundaries (interactions lacking each):\n")
  (pcase-dolist (`(,pop . ,info) (plist-get summary :unavailable))
    (let* ((n (plist-get info :interactions))
           (missing (cl-remove-if (lambda (c) (zerop (cdr c)))
                                  (plist-get info :missing))))
      (when (> n 0)
        (insert (format "  %s (%d):" (latency-report--name pop) n))
        (if (not missing)
            (insert " none\n")
          (insert "\n")
          (pcase-dolist (`(,field . ,count) missing)
            (insert (format "    %-28s %d%s\n" field count
                            (if (= count n) " (none has it)" "")))))))))

;;;; The mode and the command

(defvar-local latency-report--files nil
  "The files of the profile shown in this buffer.")

(defvar-local latency-report--cause nil
  "The interaction shown in the waterfall, or nil for the tail.")

(defvar-local latency-report--summary nil
  "The summary shown in this buffer (from `latency-profile-summary').")

(defvar latency-report-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map "i" #'latency-report-interaction)
    (define-key map "t" #'latency-report-tail)
    (define-key map "n" #'latency-report-next-section)
    (define-key map "p" #'latency-report-previous-section)
    (define-key map "\t" #'forward-button)
    (define-key map [backtab] #'backward-button)
    map)
  "Keymap of `latency-report-mode'.")

(define-derived-mode latency-report-mode special-mode "Latency-Report"
  "Major mode of a latency profile report.
\\<latency-report-mode-map>\\[revert-buffer] reads the profile again, \
\\[latency-report-interaction] shows the
waterfall of another interaction, \\[latency-report-tail] that of the tail \
interaction.

\\{latency-report-mode-map}"
  (setq-local revert-buffer-function #'latency-report--revert)
  (setq truncate-lines t))

(defun latency-report--render ()
  "Fill the current buffer from `latency-report--summary'."
  (let ((inhibit-read-only t)
        (summary latency-report--summary))
    (erase-buffer)
    (insert (format "Latency profile %s\n"
                    (mapconcat #'abbreviate-file-name latency-report--files
                               ", ")))
    (insert (format "Session %s\n" (or (plist-get summary :session) "-")))
    (latency-report--distributions summary)
    (latency-report--names summary)
    (latency-report--waterfall summary)
    (latency-report--work summary)
    (latency-report--overhead summary)
    (goto-char (point-min))))

(defun latency-report--revert (&rest _)
  "Read the profile of this buffer again and redraw it."
  (setq latency-report--summary
        (latency-profile-summary latency-report--files latency-report--cause))
  (latency-report--render))

(defun latency-report-interaction (cause)
  "Show the waterfall of the interaction with cause id CAUSE."
  (interactive "nInteraction (cause id): " latency-report-mode)
  (setq latency-report--cause cause)
  (latency-report--revert))

(defun latency-report-tail ()
  "Show the waterfall of the tail interaction again."
  (interactive nil latency-report-mode)
  (setq latency-report--cause nil)
  (latency-report--revert))

(defun latency-report-next-section (&optional n)
  "Move to the next section heading; with N, that many."
  (interactive "p" latency-report-mode)
  (dotimes (_ (or n 1))
    (let ((at (next-single-property-change
               (if (get-text-property (point) 'latency-report-section)
                   (next-single-property-change (point)
                                                'latency-report-section)
                 (point))
               'latency-report-section)))
      (when at (goto-char at)))))

(defun latency-report-previous-section (&optional n)
  "Move to the previous section heading; with N, that many."
  (interactive "p" latency-report-mode)
  (dotimes (_ (or n 1))
    (let ((at (previous-single-property-change (point)
                                               'latency-report-section)))
      (when at
        (goto-char at)
        (unless (get-text-property (point) 'latency-report-section)
          (let ((start (previous-single-property-change
                        (point) 'latency-report-section)))
            (goto-char (or start (point-min)))))))))

(defun latency-report--current-file ()
  "The file of the profile being recorded, or nil."
  (and (fboundp 'latency-profile-status)
       (plist-get (latency-profile-status) :file)))

(defun latency-report--default-file ()
  "The profile to offer: the one being recorded, else the newest one."
  (or (and (fboundp 'latency-profile-status)
           (plist-get (latency-profile-status) :file))
      (let* ((dir (or latency-profile-directory temporary-file-directory))
             (files (and (file-directory-p dir)
                         (directory-files dir t "\\.emlat\\'" t))))
        (car (sort files #'file-newer-than-file-p)))))

;;;###autoload
(defun latency-profile-report (&optional files cause)
  "Show the latency profile in FILES in a report buffer.
FILES is a file name or a list of the files of one rotated session;
nil means the profile being recorded, whose report covers every
interaction that ended so far while the recording goes on.
Interactively, show the profile being recorded; with a prefix
argument, or when none is being recorded, ask for a file, offering
the newest one in `latency-profile-directory'.  CAUSE, if non-nil, is
the cause id of the interaction whose waterfall to show instead of
the tail interaction.  In the report, \\<latency-report-mode-map>\\[revert-buffer] \
reads the profile
again and a cause id or a name shows its waterfall.  Return the
buffer."
  (interactive
   (let ((current (latency-report--current-file)))
     (list (if (and current (not current-prefix-arg))
               nil
             (let ((default (latency-report--default-file)))
               (read-file-name
                (if default
                    (format "Latency profile (default %s): "
                            (file-name-nondirectory default))
                  "Latency profile: ")
                (and default (file-name-directory default)) default t
                (and default (file-name-nondirectory default))))))))
  (unless files
    (setq files (or (latency-report--current-file)
                    (user-error "No latency profile is being recorded \
\(M-x latency-profile-start starts one)"))))
  (let* ((files (mapcar #'expand-file-name
                        (if (stringp files) (list files) files)))
         (summary (latency-profile-summary files cause))
         (buffer (get-buffer-create "*Latency Report*")))
    (with-current-buffer buffer
      (latency-report-mode)
      (setq latency-report--files files
            latency-report--cause cause
            latency-report--summary summary)
      (latency-report--render))
    (when (called-interactively-p 'any)
      (pop-to-buffer buffer))
    buffer))

(provide 'latency-report)
;;; latency-report.el ends here
