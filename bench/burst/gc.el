;;; gc.el --- burst test: a GC storm  -*- lexical-binding: t -*-
;; SPDX-License-Identifier: GPL-3.0-or-later
;;
;; Loaded by bench/bench_burst.c into `emacs -Q -nw --latency-profile=FILE'
;; under `emlat replay --script gc.script'.  F5 runs one command that calls
;; `garbage-collect' in a loop for 5 s while the script keeps typing at
;; 50 Hz (the keys wait as typeahead), then says GC-DONE.  Each collection
;; is a GC span with two thread-CPU readings inside the command's
;; interaction.

(defun burst-gc-storm ()
  "Collect garbage for five seconds."
  (interactive)
  (let ((end (+ (float-time) 5.0))
        (n 0))
    (while (< (float-time) end)
      (garbage-collect)
      (setq n (1+ n)))
    (message "GC-DONE %d" n)))

(global-set-key [f5] #'burst-gc-storm)
