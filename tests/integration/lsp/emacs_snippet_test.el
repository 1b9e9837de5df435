;;; emacs_snippet_test.el --- editors/emacs/trl-lint.el in Emacs batch  -*- lexical-binding: t; indent-tabs-mode: nil -*-
;; Run by emacs_test.sh: `emacs --batch -Q -l emacs_snippet_test.el'. Environment: TRL_SOURCE
;; (the source tree), TRL_LINT (the binary), TRL_PROJECT (a git-initialised copy of a fixture
;; whose train.py has TRL101 on line TRL_LINE), TRL_LSP_TIMEOUT (seconds per wait, default 20).
;; Loads eglot as Emacs does before a user's init.el (package.el activates Debian's
;; elpa-eglot), then the snippet as a user pastes it, sets `trl-lint-program' after it, opens
;; train.py, runs the first command's post-command-hook (where `eglot-ensure' connects) and
;; checks the Flymake diagnostics: TRL101 shows, goes when the buffer is edited to
;; packing=False, comes back on undo. Then opens launch.sh (sh-mode), which must join the
;; same trl-lint server: one server per project, not one per major mode.

(require 'cl-lib)
(require 'package)

(defvar trl-test-timeout (string-to-number (or (getenv "TRL_LSP_TIMEOUT") "20")))

(defun trl-test-fail (fmt &rest args)
  "Print why the test failed, what eglot saw, and exit with status 1."
  (message "emacs snippet test FAILED: %s" (apply #'format fmt args))
  (let ((buf (get-buffer "*trl-test-file*")))
    (when buf
      (with-current-buffer buf
        (message "  buffer mode %s; eglot server %s; flymake backends %S"
                 major-mode
                 (let ((server (and (fboundp 'eglot-current-server) (eglot-current-server))))
                   (if server (process-command (jsonrpc--process server)) "none"))
                 (and (boundp 'flymake-diagnostic-functions) flymake-diagnostic-functions)))))
  ;; The server's stderr and the end of the LSP event log, to see why.
  (dolist (b (buffer-list))
    (when (string-match-p "EGLOT.*\\(stderr\\|events\\)" (buffer-name b))
      (with-current-buffer b
        (message "---- %s (last 3000 characters)\n%s" (buffer-name b)
                 (buffer-substring-no-properties (max (point-min) (- (point-max) 3000))
                                                 (point-max))))))
  (kill-emacs 1))

(defun trl-test-codes (buf)
  "The (CODE . LINE) of BUF's Flymake diagnostics from trl-lint."
  (with-current-buffer buf
    (cl-loop for d in (flymake-diagnostics)
             for text = (flymake-diagnostic-text d)
             when (string-match "\\`trl-lint \\[\\([A-Z]+[0-9]+\\)\\]" text)
             collect (cons (match-string 1 text)
                           (line-number-at-pos (flymake-diagnostic-beg d))))))

(defun trl-test-go-idle ()
  "Run the pending idle timers once, as the command loop does when the user stops typing.
Batch Emacs is never idle, and eglot sends edits to the server from an idle timer."
  (dolist (timer (copy-sequence timer-idle-list))
    (when (memq timer timer-idle-list)
      (timer-event-handler timer))))

(defun trl-test-wait (buf what pred)
  "Process events until PRED (of BUF's codes) holds; fail naming WHAT after the timeout."
  (let ((deadline (+ (float-time) trl-test-timeout)))
    (while (and (not (funcall pred (trl-test-codes buf)))
                (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred (trl-test-codes buf))
      (trl-test-fail "%s within %s s; trl-lint diagnostics of the buffer now: %S"
                     what trl-test-timeout (trl-test-codes buf)))))

(condition-case err
    (let* ((src (or (getenv "TRL_SOURCE") (error "TRL_SOURCE is not set")))
           (root (file-name-as-directory (or (getenv "TRL_PROJECT")
                                             (error "TRL_PROJECT is not set"))))
           (line (string-to-number (or (getenv "TRL_LINE") "17")))
           (has-trl101 (lambda (codes) (member (cons "TRL101" line) codes)))
           (no-trl101 (lambda (codes) (not (assoc "TRL101" codes)))))
      ;; What Emacs does before init.el: activate the installed packages. -Q leaves the
      ;; site-lisp folders, and so Debian's elpa-eglot in /usr/share/emacs/site-lisp/elpa, out
      ;; of `package-directory-list'; put them back as a plain `emacs' has them.
      (dolist (dir (list (format "/usr/share/emacs/%s/site-lisp/elpa" emacs-version)
                         "/usr/share/emacs/site-lisp/elpa"))
        (when (file-directory-p dir) (add-to-list 'package-directory-list dir t)))
      (package-initialize)
      ;; The snippet as pasted into init.el, then the user's setting (after it, as
      ;; Customize's `custom-set-variables' at the end of init.el would set it).
      (load (expand-file-name "editors/emacs/trl-lint.el" src) nil t)
      (setq trl-lint-program (or (getenv "TRL_LINT") (error "TRL_LINT is not set")))
      (message "emacs %s, eglot %s" emacs-version
               (let ((d (cadr (assq 'eglot package-alist))))
                 (if d (package-version-join (package-desc-version d)) "built in")))
      (let ((buf (find-file (expand-file-name "train.py" root))))
        (with-current-buffer buf
          (rename-buffer "*trl-test-file*")
          (unless (eq major-mode 'python-mode)
            (trl-test-fail "train.py opened in %s, not python-mode" major-mode))
          ;; The command loop runs post-command-hook after the command that opened the
          ;; file; batch mode has no command loop, so run it here (eglot-ensure connects
          ;; from it).
          (run-hooks 'post-command-hook)
          (unless (eglot-current-server)
            (trl-test-fail "the snippet's hook did not start an eglot server for train.py"))
          (message "eglot started %S" (process-command
                                       (jsonrpc--process (eglot-current-server)))))
        (trl-test-wait buf (format "no TRL101 on train.py:%d" line) has-trl101)
        (message "ok: TRL101 on train.py:%d through editors/emacs/trl-lint.el" line)
        ;; Fix it in the buffer (not on disk): the open document stands in for the file.
        (with-current-buffer buf
          (buffer-enable-undo)
          (undo-boundary)
          (goto-char (point-min))
          (unless (re-search-forward "packing=\\(True\\)" nil t)
            (trl-test-fail "no packing=True in train.py"))
          (replace-match "False" t t nil 1)
          (undo-boundary)
          (trl-test-go-idle))
        (trl-test-wait buf "TRL101 still shown after the edit to packing=False" no-trl101)
        (message "ok: TRL101 gone after the edit to packing=False")
        (with-current-buffer buf
          (let ((last-command nil)) (undo))
          (unless (save-excursion (goto-char (point-min)) (search-forward "packing=True" nil t))
            (trl-test-fail "undo did not restore packing=True"))
          (trl-test-go-idle))
        (trl-test-wait buf "no TRL101 after undo" has-trl101)
        (message "ok: TRL101 back after undo")
        (let ((sh (find-file (expand-file-name "launch.sh" root)))
              (server (with-current-buffer buf (eglot-current-server))))
          (with-current-buffer sh
            (unless (eq major-mode 'sh-mode)
              (trl-test-fail "launch.sh opened in %s, not sh-mode" major-mode))
            (run-hooks 'post-command-hook)
            (unless (eglot-current-server)
              (trl-test-fail "the snippet's hook did not start eglot for launch.sh"))
            (unless (eq (eglot-current-server) server)
              (trl-test-fail "launch.sh got a second server %S, not train.py's"
                             (process-command (jsonrpc--process (eglot-current-server)))))
            (message "ok: launch.sh (sh-mode) managed by the same trl-lint server")))
        (with-current-buffer buf
          (let ((server (eglot-current-server)))
            (set-buffer-modified-p nil)
            (eglot-shutdown server)))
        (kill-emacs 0)))
  (error (trl-test-fail "%s" (error-message-string err))))
