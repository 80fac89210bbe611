;;; flood.el --- burst test: a process whose filter inserts its output  -*- lexical-binding: t -*-
;; SPDX-License-Identifier: GPL-3.0-or-later
;;
;; Loaded by bench/bench_burst.c into `emacs -Q -nw --latency-profile=FILE'
;; under `emlat replay --script flood.script'.  F5 starts
;;   head -c 20000000 /dev/urandom | base64
;; whose filter appends every chunk Emacs reads (`read-process-output-max',
;; 4096 bytes by default) to a buffer shown in the selected window, with
;; point at its end, as a shell or compilation buffer does.  The buffer is
;; kept under 1 MB by deleting its first half, so that the cost of each
;; chunk stays what it is in a fresh buffer rather than growing with the
;; line count of the mode line.  The sentinel says FLOOD-DONE, which the
;; replay script waits for.  Nothing here is recorded as text: the profile
;; holds only times and counts.

(defun burst-flood-filter (proc string)
  (with-current-buffer (process-buffer proc)
    (goto-char (point-max))
    (insert string)
    (when (> (buffer-size) 1000000)
      (delete-region (point-min) (+ (point-min) 500000)))
    (set-window-point (get-buffer-window (current-buffer)) (point-max))))

(defun burst-flood ()
  "Start the flood."
  (interactive)
  (let ((buf (get-buffer-create "*flood*")))
    (switch-to-buffer buf)
    (make-process :name "flood" :buffer buf :connection-type 'pipe
                  :command '("sh" "-c" "head -c 20000000 /dev/urandom | base64")
                  :filter #'burst-flood-filter
                  :sentinel (lambda (_proc _event) (message "FLOOD-DONE")))))

(global-set-key [f5] #'burst-flood)
