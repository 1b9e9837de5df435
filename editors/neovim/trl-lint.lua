-- trl-lint in Neovim (0.7 or later), no plugin needed. Put this file in
-- ~/.config/nvim/plugin/ (or `require` it from init.lua). It starts one `trl-lint server` per
-- project (the nearest folder holding .trl-lint.yaml, pyproject.toml or .git) for the files
-- trl-lint reads, and shows its diagnostics (cross-file findings included), code actions
-- (`vim.lsp.buf.code_action()`: quickfix, `# noqa`, fix all) and hover (`K`: rule docs).
local cmd = { vim.g.trl_lint_path or "trl-lint", "server" }

local function root_of(fname)
  local markers = { ".trl-lint.yaml", ".trl-lint.yml", "pyproject.toml", ".git" }
  local found = vim.fs and vim.fs.find(markers, { upward = true, path = vim.fs.dirname(fname) })[1]
  if found then return vim.fs.dirname(found) end
  -- Neovim 0.7 has no vim.fs: walk up by hand.
  local dir = vim.fn.fnamemodify(fname, ":p:h")
  while dir and dir ~= "/" do
    for _, m in ipairs(markers) do
      if vim.loop.fs_stat(dir .. "/" .. m) then return dir end
    end
    dir = vim.fn.fnamemodify(dir, ":h")
  end
  return vim.fn.getcwd()
end

local clients = {}  -- root -> client id

vim.api.nvim_create_autocmd("FileType", {
  pattern = { "python", "yaml", "sh", "bash", "make", "markdown", "toml" },
  callback = function(args)
    local fname = vim.api.nvim_buf_get_name(args.buf)
    if fname == "" then return end
    local root = root_of(fname)
    local id = clients[root]
    if not id or not vim.lsp.get_client_by_id(id) then
      id = vim.lsp.start_client({ name = "trl-lint", cmd = cmd, root_dir = root })
      clients[root] = id
    end
    if id then vim.lsp.buf_attach_client(args.buf, id) end
  end,
})

-- With nvim-lspconfig instead (it has no built-in trl-lint entry; this registers one):
--   local configs = require("lspconfig.configs")
--   configs.trl_lint = { default_config = {
--     cmd = { "trl-lint", "server" },
--     filetypes = { "python", "yaml", "sh", "make", "markdown", "toml" },
--     root_dir = require("lspconfig.util").root_pattern(".trl-lint.yaml", "pyproject.toml", ".git"),
--   } }
--   require("lspconfig").trl_lint.setup({})
