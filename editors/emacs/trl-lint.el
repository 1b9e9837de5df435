;;; trl-lint.el --- trl-lint diagnostics through eglot  -*- lexical-binding: t; -*-
;; Ready to paste into init.el. Emacs 29 and later ship eglot; on Emacs 26.3-28 install it first
;; (M-x package-install RET eglot, or Debian's elpa-eglot). Tested with Emacs 28.2 and eglot 1.9
;; (Debian 12) by tests/integration/lsp/emacs_test.sh; written for Emacs 29+ too (its
;; tree-sitter modes are listed, and the contact function takes the one argument eglot 1.9
;; passes and the two newer eglot passes).
;; Findings appear through Flymake, `M-x eglot-code-actions' offers the fix, `# noqa' and
;; "fix all"; `M-x eldoc' (or hovering) shows the rule documentation.

(require 'eglot)

(defcustom trl-lint-program "trl-lint"
  "The trl-lint executable.
Read each time a server starts, so it can be set after this snippet."
  :type 'string :group 'tools)

(defun trl-lint--contact (&rest _)
  "The command of `trl-lint server', for `eglot-server-programs'."
  (list trl-lint-program "server"))

;; One entry for all the modes, so that one trl-lint server per project manages the Python,
;; YAML, shell, Makefile, Markdown and TOML buffers together (a separate entry per mode would
;; start a server per mode). trl-lint tells files apart by their names, not by the language
;; ID eglot sends. Derived modes (makefile-gmake-mode, ...) match their parent.
(add-to-list 'eglot-server-programs
             (cons '(python-mode python-ts-mode yaml-mode yaml-ts-mode sh-mode bash-ts-mode
                     makefile-mode markdown-mode toml-ts-mode conf-toml-mode)
                   #'trl-lint--contact))

;; Start trl-lint automatically in the modes of the files training runs are made of. The
;; tree-sitter modes of Emacs 29+ do not run the hooks of the classic modes, hence both.
(dolist (hook '(python-mode-hook python-ts-mode-hook yaml-mode-hook yaml-ts-mode-hook
                sh-mode-hook bash-ts-mode-hook makefile-mode-hook))
  (add-hook hook #'eglot-ensure))

;; Note: eglot gives a buffer one server, and the entry above, added first, wins over
;; eglot's defaults (pylsp, bash-language-server, yaml-language-server). If you use another
;; language server for Python, drop python-mode and python-ts-mode from the entry and the
;; hooks, or combine servers with a language-server multiplexer.

(provide 'trl-lint)
;;; trl-lint.el ends here
