-- Drives `trl-lint server` from Neovim 0.7 (headless) as a real LSP client. Environment:
-- TRL_LINT (the executable), TRL_PROJECT (a copy of tests/cases/TRL101.md#yaml_packing_accel_yaml_cp).
-- Exits 0 when every step passes; otherwise prints the failed step and exits 1.
local trl = os.getenv("TRL_LINT")
local root = os.getenv("TRL_PROJECT")
local recipe = root .. "/recipes/qwen2.5-0.5b/sft_long.yaml"
local accel = root .. "/recipes/accelerate_configs/context_parallel_2gpu.yaml"
local TIMEOUT = tonumber(os.getenv("TRL_LSP_TIMEOUT") or "15000")

local function fail(msg)
  io.stderr:write("nvim LSP test FAILED: " .. msg .. "\n")
  vim.cmd("cquit 1")
end

local function step(msg) io.stdout:write("ok: " .. msg .. "\n") end

local client_id = vim.lsp.start_client({
  name = "trl-lint",
  cmd = { trl, "server" },
  root_dir = root,
  on_exit = function(code) if code ~= 0 then io.stderr:write("server exited with " .. code .. "\n") end end,
})
if not client_id then fail("could not start the server") end

local function codes(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == "trl-lint" then table.insert(out, d.code) end
  end
  return out
end
local function has(bufnr, code)
  for _, c in ipairs(codes(bufnr)) do if c == code then return true end end
  return false
end
local function wait_for(what, pred)
  if not vim.wait(TIMEOUT, pred, 20) then fail("timed out waiting for " .. what) end
  step(what)
end

-- 1. Open the recipe: the cross-file TRL101 (packing + cp_size=2 in the accelerate YAML) shows.
vim.cmd("edit " .. vim.fn.fnameescape(recipe))
local rbuf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(rbuf, client_id)
wait_for("TRL101 on the opened recipe", function() return has(rbuf, "TRL101") end)
local d
for _, x in ipairs(vim.diagnostic.get(rbuf)) do if x.code == "TRL101" then d = x end end
if d.lnum ~= 14 or d.col ~= 0 then fail("TRL101 at " .. d.lnum .. ":" .. d.col .. ", expected 14:0") end
if d.severity ~= vim.diagnostic.severity.ERROR then fail("TRL101 is not an error") end
local related = d.user_data and d.user_data.lsp and d.user_data.lsp.relatedInformation or {}
local found = false
for _, r in ipairs(related) do
  if r.location.uri == vim.uri_from_fname(accel) then found = true end
end
if not found then fail("TRL101 has no related location in the accelerate YAML") end
local href = d.user_data.lsp.codeDescription and d.user_data.lsp.codeDescription.href or ""
if not href:match("TRL101") then fail("codeDescription.href does not name TRL101: " .. href) end
step("TRL101 at 15:1, error, related location in the accelerate YAML, codeDescription")

-- 2. Hover and code actions on the finding.
local client = vim.lsp.get_client_by_id(client_id)
local pos = { textDocument = { uri = vim.uri_from_bufnr(rbuf) }, position = { line = 14, character = 2 } }
local hover = client.request_sync("textDocument/hover", pos, TIMEOUT, rbuf)
if not hover or hover.err or not hover.result or not hover.result.contents.value:match("TRL101") then
  fail("hover does not show the TRL101 documentation")
end
step("hover shows the rule documentation")
local ca = client.request_sync("textDocument/codeAction", {
  textDocument = pos.textDocument,
  range = { start = pos.position, ["end"] = pos.position },
  context = { diagnostics = {} },
}, TIMEOUT, rbuf)
local titles = {}
for _, a in ipairs((ca and ca.result) or {}) do table.insert(titles, a.title) end
local all = table.concat(titles, " | ")
if not all:match("noqa: TRL101") then fail("no noqa code action; got: " .. all) end
step("code actions: " .. all)

-- 3. Fix it in the buffer: the finding goes away; undo: it comes back.
vim.api.nvim_buf_set_lines(rbuf, 14, 15, false, { "packing: false" })
wait_for("TRL101 gone after `packing: false`", function() return not has(rbuf, "TRL101") end)
vim.cmd("undo")
if vim.api.nvim_buf_get_lines(rbuf, 14, 15, false)[1] ~= "packing: true" then fail("undo did not restore the line") end
wait_for("TRL101 back after undo", function() return has(rbuf, "TRL101") end)

-- 4. Cross-file: edit the accelerate YAML (cp_size 2 -> 1); the recipe's finding goes away.
vim.cmd("edit " .. vim.fn.fnameescape(accel))
local abuf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(abuf, client_id)
local lines = vim.api.nvim_buf_get_lines(abuf, 0, -1, false)
local cp_line
for i, l in ipairs(lines) do if l:match("parallelism_config_cp_size") then cp_line = i - 1 end end
vim.api.nvim_buf_set_text(abuf, cp_line, 30, cp_line, 31, { "1" })
if not vim.api.nvim_buf_get_lines(abuf, cp_line, cp_line + 1, false)[1]:match("cp_size: 1") then
  fail("the accelerate YAML edit did not apply")
end
wait_for("TRL101 gone from the recipe after cp_size: 1 in the other file", function() return not has(rbuf, "TRL101") end)
vim.cmd("undo")
wait_for("TRL101 back in the recipe after undo in the other file", function() return has(rbuf, "TRL101") end)

-- 5. Orderly shutdown.
vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
step("done")
vim.cmd("qall!")
