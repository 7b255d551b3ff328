-- A headless Neovim session with `jaxlint server` (the transcript in benchmarks/editor_session.txt).
-- Run: nvim --headless --clean -u NONE -c "luafile benchmarks/nvim_session.lua" model.py
-- Neovim 0.7 (Debian 12) has no vim.lsp.config / vim.lsp.start: it uses vim.lsp.start_client.
local function out(s) io.stdout:write(s .. "\n") end
local function show(title)
  out("-- " .. title)
  for _, d in ipairs(vim.diagnostic.get(0)) do
    out(string.format("   %d:%d-%d:%d %s %s [%s]", d.lnum + 1, d.col + 1, d.end_lnum + 1, d.end_col + 1,
      d.code or "?", d.message:gsub("\n.*", ""), d.source or ""))
  end
  if #vim.diagnostic.get(0) == 0 then out("   (none)") end
end
local function wait_for(pred) return vim.wait(20000, pred, 20) end

local client = vim.lsp.start_client({
  name = "jaxlint",
  cmd = { "python", "-m", "jaxlint", "server" },
  root_dir = vim.fn.getcwd(),
})
vim.lsp.buf_attach_client(0, client)
out("nvim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." ..
    tostring(vim.version().patch) .. ", file " .. vim.fn.expand("%"))
wait_for(function() return #vim.diagnostic.get(0) > 0 end)
show("diagnostics after opening")

-- An unsaved edit: line 7 `if x > 0:` becomes `if x.ndim > 0:`.
vim.api.nvim_buf_set_lines(0, 6, 7, false, { "    if x.ndim > 0:" })
wait_for(function() return #vim.diagnostic.get(0) == 1 end)
show("diagnostics after an unsaved edit (line 7 -> `if x.ndim > 0:`)")
vim.api.nvim_buf_set_lines(0, 6, 7, false, { "    if x > 0:" })
wait_for(function() return #vim.diagnostic.get(0) == 2 end)
show("diagnostics after undoing it")

local function request(method, params)
  local res = vim.lsp.buf_request_sync(0, method, params, 10000)
  return res and res[client] and res[client].result
end

local d201 = vim.tbl_filter(function(d) return d.code == "JAX201" end, vim.diagnostic.get(0))[1]
local hover = request("textDocument/hover", { textDocument = { uri = vim.uri_from_bufnr(0) },
  position = { line = d201.lnum, character = d201.col } })
out("-- hover on JAX201 (first 6 lines)")
local lines = vim.split(hover.contents.value, "\n")
for i = 1, 6 do out("   | " .. (lines[i] or "")) end

local function actions_at(d)
  return request("textDocument/codeAction", { textDocument = { uri = vim.uri_from_bufnr(0) },
    range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
    context = { diagnostics = {} } })
end
local d901 = vim.tbl_filter(function(d) return d.code == "JAX901" end, vim.diagnostic.get(0))[1]
out("-- code actions on JAX901")
local fix
for _, a in ipairs(actions_at(d901)) do
  out("   * " .. a.title .. (a.kind and (" [" .. a.kind .. "]") or ""))
  if a.kind == "quickfix" and not fix then fix = a end
end
vim.lsp.util.apply_workspace_edit(fix.edit, "utf-16")
out("-- applied: " .. fix.title)
wait_for(function() return #vim.diagnostic.get(0) == 1 end)
show("diagnostics after the fix")

d201 = vim.diagnostic.get(0)[1]
for _, a in ipairs(actions_at(d201)) do
  if a.title == "Disable JAX201 for this line" then
    vim.lsp.util.apply_workspace_edit(a.edit, "utf-16")
    out("-- applied: " .. a.title)
  end
end
wait_for(function() return #vim.diagnostic.get(0) == 0 end)
show("diagnostics after the noqa action")
out("-- buffer now (unsaved)")
for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do out(string.format("   %2d  %s", i, l)) end

vim.lsp.stop_client(client)
vim.wait(3000, function() return vim.lsp.get_client_by_id(client) == nil end, 20)
out("-- server stopped (shutdown, exit)")
vim.cmd("qa!")
