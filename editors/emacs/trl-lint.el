;;; trl-lint.el --- trl-lint diagnostics through eglot  -*- lexical-binding: t; -*-
;; Ready to paste into init.el (Emacs 29 ships eglot; older Emacs: M-x package-install eglot).
;; Findings appear through Flymake, `M-x eglot-code-actions' offers the fix, `# noqa' and
;; "fix all"; `M-x eldoc' (or hovering) shows the rule documentation.

(require 'eglot)

(defcustom trl-lint-program "trl-lint"
  "The trl-lint executable."
  :type 'string :group 'tools)

(dolist (mode '(python-mode python-ts-mode yaml-mode yaml-ts-mode sh-mode bash-ts-mode
                makefile-mode makefile-gmake-mode markdown-mode toml-ts-mode conf-toml-mode))
  (add-to-list 'eglot-server-programs
               `(,mode . (,trl-lint-program "server"))))

;; Start trl-lint automatically in those modes (eglot runs one server per project).
(dolist (hook '(python-mode-hook yaml-mode-hook sh-mode-hook makefile-mode-hook))
  (add-hook hook #'eglot-ensure))

;; Note: eglot runs one server per major mode and project. If you already use another
;; language server for Python (pyright, pylsp), list trl-lint for YAML/shell only, or combine
;; servers with a language-server multiplexer.

(provide 'trl-lint)
;;; trl-lint.el ends here
