-- nvim --headless -u init.lua FILE -c "luafile nvim_check.lua" (tests/test_lsp.py): print the file's diagnostics, the hover
-- on the first one, apply its preferred quick fix, print the buffer, quit.
local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local function out(s) io.stdout:write(s .. "\n") end
if not ok then out("no diagnostics"); vim.cmd("qa!") end
local diags = vim.diagnostic.get(0)
for _, d in ipairs(diags) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  out(string.format("diagnostic: %s %s %d:%d %s", d.source, code, d.lnum + 1, d.col + 1, d.message))
end
local d = diags[1]
local pos = { line = d.lnum, character = d.col }
local hover = vim.lsp.buf_request_sync(0, "textDocument/hover",
  { textDocument = vim.lsp.util.make_text_document_params(), position = pos }, 10000)
for _, r in pairs(hover or {}) do
  if r.result then out("hover: " .. vim.split(r.result.contents.value, "\n")[1]) end
end
-- the line's diagnostics in LSP form, as vim.lsp.buf.code_action() sends them
local line_diags = vim.lsp.diagnostic.get_line_diagnostics and vim.lsp.diagnostic.get_line_diagnostics(0, d.lnum) or {}
local actions = vim.lsp.buf_request_sync(0, "textDocument/codeAction", {
  textDocument = vim.lsp.util.make_text_document_params(),
  range = { start = pos, ["end"] = { line = d.end_lnum, character = d.end_col } },
  context = { diagnostics = line_diags },
}, 10000)
for _, r in pairs(actions or {}) do
  for _, action in ipairs(r.result or {}) do
    out("code action: " .. action.title .. (action.isPreferred and " (preferred)" or ""))
    if action.isPreferred then vim.lsp.util.apply_workspace_edit(action.edit, "utf-16") end
  end
end
out("buffer after the quick fix:")
for _, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do out("  " .. line) end
vim.cmd("qa!")
