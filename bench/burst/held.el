;;; held.el --- burst test: a held key with slow redisplay  -*- lexical-binding: t -*-
;; SPDX-License-Identifier: GPL-3.0-or-later
;;
;; Loaded by bench/bench_burst.c into `emacs -Q -nw --latency-profile=FILE'
;; under `emlat replay --script held.script', which holds a key at 50 Hz
;; (a key every 20 ms) for 10 s.  Every redisplay first burns 30 ms of CPU
;; in `pre-redisplay-function', so redisplay is slower than the key rate:
;; keys are typed ahead, commands run back to back and most redisplays are
;; skipped (superseded), as on a slow terminal or a heavy mode line.

(defvar burst-redisplay-ms 30
  "CPU milliseconds burned before each redisplay.")

(defun burst-slow-redisplay (&rest _)
  (let ((end (+ (float-time) (/ burst-redisplay-ms 1000.0))))
    (while (< (float-time) end))))

(add-function :before pre-redisplay-function #'burst-slow-redisplay)
