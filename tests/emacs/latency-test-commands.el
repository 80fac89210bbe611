;;; latency-test-commands.el --- synthetic commands for emlat's Emacs tests  -*- lexical-binding: t -*-

;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; Loaded with `emacs -Q -nw -l' by tests/emacs/test_emacs_commands.sh,
;; which types the keys below under `emlat replay' and reads back the
;; profile the profiled Emacs recorded.  Each command has a known
;; behaviour, so the test can check the numbers of its interaction:
;;
;;   <f4>   waits in `sit-for' for up to 2 s: a key typed meanwhile is
;;          read by `sit-for' and put back into `unread-command-events'
;;   <f5>   burns 20 ms of CPU
;;   <f6>   sleeps 30 ms
;;   <f7>   signals an error
;;   <f8>   throws to top level
;;   <f9>   spins for up to 3 s, to be quit with C-g
;;   <f10>  starts a timer, a subprocess (filter and sentinel) and a
;;          file notification: roots of other kinds
;;   <f11>  inserts a marker into the buffer
;;   <f12>  burns 400 ms of CPU (tests/emacs/test_emacs_observer.sh types
;;          a key in the middle)
;;
;; Every name defined here and every string it inserts or prints carries
;; a marker ("qz...qz" or "QZ...QZ") that must never appear in the
;; profile.  The directory for the file notification is given by the
;; environment variable EMLAT_TEST_DIR, whose name carries a marker too.

;;; Code:

(require 'filenotify)

(defun emlat-test-qzcmdburnqz ()
  "Burn 20 ms of CPU without waiting.
The loop conses a float per turn; no garbage collection may add to it."
  (interactive)
  (let ((gc-cons-threshold most-positive-fixnum)
        (end (+ (float-time) 0.020)))
    (while (< (float-time) end))))

(defun emlat-test-qzcmdlongburnqz ()
  "Burn 400 ms of CPU without waiting or collecting garbage.
It first asks whether input is pending, which makes Emacs drain the
terminal and find it empty: only then is the input observer armed
again (DESIGN.md section 2.5), so that it can see a key typed during the
burn.  Without that check, whether Emacs happened to read again after
the key that ran this command would decide the test."
  (interactive)
  (input-pending-p)
  (let ((gc-cons-threshold most-positive-fixnum)
        (end (+ (float-time) 0.400)))
    (while (< (float-time) end))))

(defun emlat-test-qzcmdsitforqz ()
  "Wait in `sit-for' for up to 2 s."
  (interactive)
  (sit-for 2))

(defun emlat-test-qzcmdsleepqz ()
  "Sleep 30 ms."
  (interactive)
  (sleep-for 0.030))

(defun emlat-test-qzcmderrorqz ()
  "Signal an error."
  (interactive)
  (error "QZERRORTEXTQZ"))

(defun emlat-test-qzcmdthrowqz ()
  "Throw to top level."
  (interactive)
  (top-level))

(defun emlat-test-qzcmdspinqz ()
  "Spin for up to 3 s, so that C-g quits a busy command."
  (interactive)
  (let ((end (+ (float-time) 3)))
    (while (< (float-time) end))))

(defvar emlat-test-qzvarbufqz nil
  "The buffer that shows the output of the other roots.")

(defun emlat-test-qzcmdrootsqz ()
  "Start a timer, a subprocess and a file notification.
Each later changes the buffer shown in the selected window, so that each
root has a redisplay and a flush of its own."
  (interactive)
  (let ((buf (get-buffer-create "QZBUFFERNAMEQZ"))
        (dir (getenv "EMLAT_TEST_DIR")))
    (setq emlat-test-qzvarbufqz buf)
    (switch-to-buffer buf)
    (run-with-timer 0.3 nil
                    (lambda ()
                      (with-current-buffer buf
                        (insert "QZTIMERTEXTQZ\n"))))
    (make-process :name "qzprocnameqz"
                  :buffer buf
                  :command (list "sh" "-c"
                                 "sleep 0.6; echo QZPROCOUTPUTQZ")
                  :sentinel (lambda (_proc _event)
                              (with-current-buffer buf
                                (insert "QZSENTINELTEXTQZ\n"))))
    (file-notify-add-watch dir '(change)
                           (lambda (_event)
                             (with-current-buffer buf
                               (insert "QZNOTIFYTEXTQZ\n"))))
    (run-with-timer 1.0 nil
                    (lambda ()
                      (write-region "QZFILECONTENTQZ" nil
                                    (expand-file-name "qzfilenameqz" dir)
                                    nil 'silent)))))

(defun emlat-test-qzcmdinsertqz ()
  "Insert a marker into the buffer."
  (interactive)
  (insert "QZBUFFERTEXTQZ"))

(global-set-key (kbd "<f4>") #'emlat-test-qzcmdsitforqz)
(global-set-key (kbd "<f5>") #'emlat-test-qzcmdburnqz)
(global-set-key (kbd "<f6>") #'emlat-test-qzcmdsleepqz)
(global-set-key (kbd "<f7>") #'emlat-test-qzcmderrorqz)
(global-set-key (kbd "<f8>") #'emlat-test-qzcmdthrowqz)
(global-set-key (kbd "<f9>") #'emlat-test-qzcmdspinqz)
(global-set-key (kbd "<f10>") #'emlat-test-qzcmdrootsqz)
(global-set-key (kbd "<f11>") #'emlat-test-qzcmdinsertqz)
(global-set-key (kbd "<f12>") #'emlat-test-qzcmdlongburnqz)

;;; latency-test-commands.el ends here
