;;; latency-test-terminals.el --- terminals opened and closed while profiling  -*- lexical-binding: t -*-

;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; Loaded with `emacs -Q -nw -l' by tests/emacs/test_emacs_terminals.sh
;; under `emlat replay', which types nothing until C-x C-c.  It starts
;; the latency profile (input observer on) in the file named by the
;; environment variable EMLAT_TEST_PROFILE and runs, from timers, a
;; scenario of extra terminals: each is the slave of a pseudo-terminal
;; that a `sleep' subprocess holds, opened with `make-frame';
;; bytes written to the master side with `process-send-string' are its
;; typed keys.
;;
;;   reuse  terminal A is opened and watched for a while; the bytes
;;          "ab" are written to the pseudo-terminal of B before A
;;          closes, and B is opened right after A closes, on the
;;          descriptor A had: its first read returns the bytes, which
;;          arrived before B's descriptor was ever seen empty;
;;   cycle  nine more terminals are opened, watched and closed, each on
;;          a descriptor of its own (more than the eight that the
;;          profile notes as known empty at once);
;;   last   one more terminal is opened, watched for 400 ms, and then
;;          sent "cde".
;;
;; Each step appends a line to the file named by EMLAT_TEST_LOG: the
;; descriptors the terminals had, from /proc/self/fd, and "done" at the
;; end.  Nothing it types or names reaches the profile except as counts
;; and times.

;;; Code:

(setq confirm-kill-processes nil)

(defvar emlat-test-terminals-log (getenv "EMLAT_TEST_LOG"))
(defvar emlat-test-terminals-procs nil)

(defun emlat-test-terminals-note (fmt &rest args)
  (write-region (concat (apply #'format fmt args) "\n") nil
                emlat-test-terminals-log t 'silent))

(defun emlat-test-terminals-pty ()
  "A `sleep' subprocess on a new pseudo-terminal; its slave's name."
  (let ((p (make-process :name "emlat-test-pty" :command '("sleep" "60")
                         :connection-type 'pty :noquery t
                         :filter #'ignore :sentinel #'ignore)))
    (push p emlat-test-terminals-procs)
    (cons p (process-tty-name p))))

(defun emlat-test-terminals-fd (tty)
  "The descriptor of this process that is open on TTY, or -1."
  (let ((found -1))
    (dotimes (fd 256)
      (when (and (< found 0)
                 (equal (file-symlink-p (format "/proc/self/fd/%d" fd)) tty))
        (setq found fd)))
    found))

(defun emlat-test-terminals-open (tty)
  "A frame on a new terminal, on TTY (`make-frame-on-tty' of Emacs 29)."
  (make-frame `((window-system . nil) (tty . ,tty) (tty-type . "vt100"))))

(defun emlat-test-terminals-close (frame)
  (delete-frame frame t))

(defun emlat-test-terminals-then (delay fn)
  (run-at-time delay nil fn))

(defun emlat-test-terminals-reuse ()
  (let* ((a (emlat-test-terminals-pty))
         (fa (emlat-test-terminals-open (cdr a)))
         (fd-a (emlat-test-terminals-fd (cdr a))))
    (emlat-test-terminals-then
     0.3
     (lambda ()
       (let ((b (emlat-test-terminals-pty)))
         (process-send-string (car b) "ab")
         (emlat-test-terminals-then
          0.3
          (lambda ()
            (emlat-test-terminals-close fa)
            (let* ((fb (emlat-test-terminals-open (cdr b)))
                   (fd-b (emlat-test-terminals-fd (cdr b))))
              (emlat-test-terminals-note "reuse %d %d" fd-a fd-b)
              (emlat-test-terminals-then
               0.3
               (lambda ()
                 (emlat-test-terminals-close fb)
                 (emlat-test-terminals-cycle 9)))))))))))

(defun emlat-test-terminals-new (label)
  "A frame on a new pseudo-terminal, its descriptor noted after LABEL.
Returns (PROCESS . FRAME)."
  (let* ((p (emlat-test-terminals-pty))
         (f (emlat-test-terminals-open (cdr p))))
    (emlat-test-terminals-note "%s %d" label (emlat-test-terminals-fd (cdr p)))
    (cons (car p) f)))

(defun emlat-test-terminals-cycle (n)
  (if (= n 0)
      (emlat-test-terminals-last)
    (let ((f (cdr (emlat-test-terminals-new "cycle"))))
      (emlat-test-terminals-then
       0.1
       (lambda ()
         (emlat-test-terminals-close f)
         (emlat-test-terminals-cycle (1- n)))))))

(defun emlat-test-terminals-last ()
  (let ((pf (emlat-test-terminals-new "last")))
    (emlat-test-terminals-then
     0.4
     (lambda ()
       (process-send-string (car pf) "cde")
       (emlat-test-terminals-then
        0.5
        (lambda ()
          (emlat-test-terminals-close (cdr pf))
          (mapc #'delete-process emlat-test-terminals-procs)
          (emlat-test-terminals-note "done")))))))

(when (getenv "EMLAT_TEST_PROFILE")
  (setq latency-profile-input-observer t)
  (latency-profile-start (getenv "EMLAT_TEST_PROFILE")))
(emlat-test-terminals-then 0.5 #'emlat-test-terminals-reuse)

;;; latency-test-terminals.el ends here
