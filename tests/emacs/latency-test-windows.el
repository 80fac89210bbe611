;;; latency-test-windows.el --- window layouts for emlat's window-rows test  -*- lexical-binding: t -*-

;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; Loaded with `emacs -Q -nw -l' by tests/emacs/test_emacs_windows.sh,
;; which types the keys below under `emlat replay' and checks the
;; window_rows counter of each key's interaction: the text rows of the
;; selected window when the key sequence was read.  The menu bar is off,
;; so that the frame's single window has the terminal's rows less the
;; echo area.  Each key changes what the next one sees:
;;
;;   <f5>   the buffer gets a header line
;;   <f6>   the buffer gets a tab line
;;   <f7>   the buffer loses its mode line
;;   <f8>   the window's parameter `header-line-format' is `none'
;;   <f9>   that parameter is nil again (the window keeps a parameter
;;          list), and a new window of two lines below is selected
;;          (no parameters: too small for both header and tab lines)
;;   <f10>  the buffer's mode line is back (in two lines the mode line
;;          prevails over the header and tab lines)
;;
;; Every string here carries a marker ("QZ...QZ") that must never appear
;; in the profile.

;;; Code:

(menu-bar-mode -1)

(defun emlat-test-qzheaderqz ()
  "Give the buffer a header line."
  (interactive)
  (setq-local header-line-format "QZHEADERLINEQZ"))

(defun emlat-test-qztablineqz ()
  "Give the buffer a tab line."
  (interactive)
  (setq-local tab-line-format "QZTABLINEQZ"))

(defun emlat-test-qznomodelineqz ()
  "Take the buffer's mode line away."
  (interactive)
  (setq-local mode-line-format nil))

(defun emlat-test-qznoheaderparamqz ()
  "Hide the header line of the selected window by its parameter."
  (interactive)
  (set-window-parameter nil 'header-line-format 'none))

(defun emlat-test-qzsmallwindowqz ()
  "Clear the parameter; select a new window of two lines below."
  (interactive)
  (set-window-parameter nil 'header-line-format nil)
  (let ((window-min-height 1)
        (window-safe-min-height 1)
        (window-resize-pixelwise t))
    (select-window (split-window nil -2))))

(defun emlat-test-qzmodelinebackqz ()
  "Give the buffer its mode line back."
  (interactive)
  (kill-local-variable 'mode-line-format))

(global-set-key (kbd "<f5>") #'emlat-test-qzheaderqz)
(global-set-key (kbd "<f6>") #'emlat-test-qztablineqz)
(global-set-key (kbd "<f7>") #'emlat-test-qznomodelineqz)
(global-set-key (kbd "<f8>") #'emlat-test-qznoheaderparamqz)
(global-set-key (kbd "<f9>") #'emlat-test-qzsmallwindowqz)
(global-set-key (kbd "<f10>") #'emlat-test-qzmodelinebackqz)

;;; latency-test-windows.el ends here
