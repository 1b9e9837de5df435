-- editors/neovim/trl-lint.lua as a user pastes it: opening a YAML file of the project starts
-- trl-lint through the FileType autocommand and the cross-file finding shows.
local src = os.getenv("TRL_SOURCE")
local root = os.getenv("TRL_PROJECT")
vim.g.trl_lint_path = os.getenv("TRL_LINT")
vim.cmd("filetype on")
vim.cmd("luafile " .. vim.fn.fnameescape(src .. "/editors/neovim/trl-lint.lua"))
vim.cmd("edit " .. vim.fn.fnameescape(root .. "/recipes/qwen2.5-0.5b/sft_long.yaml"))
local buf = vim.api.nvim_get_current_buf()
local ok = vim.wait(tonumber(os.getenv("TRL_LSP_TIMEOUT") or "15000"), function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == "TRL101" and d.source == "trl-lint" then return true end
  end
  return false
end, 20)
if not ok then
  io.stderr:write("nvim snippet test FAILED: no TRL101 through editors/neovim/trl-lint.lua (filetype "
    .. vim.bo[buf].filetype .. ", clients " .. #vim.lsp.buf_get_clients(buf) .. ")\n")
  vim.cmd("cquit 1")
end
io.stdout:write("ok: editors/neovim/trl-lint.lua started trl-lint and TRL101 shows\n")
vim.cmd("qall!")
