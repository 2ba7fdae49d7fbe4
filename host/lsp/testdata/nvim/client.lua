-- Drives resetpolicy lsp from Neovim's own LSP client (vim.lsp.start_client,
-- there since 0.5; vim.lsp.start wraps it from 0.8): diagnostics, completion,
-- hover, definition and formatting on the open buffer, written to $OUT.
local out = {}
local function log(s) table.insert(out, s) end
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({ name = "resetpolicy", cmd = { vim.env.RESETPOLICY_BIN, "lsp" }, root_dir = vim.fn.getcwd() })
vim.lsp.buf_attach_client(buf, id)
vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(buf)) do
  log(string.format("diagnostic %d:%d %s", d.lnum + 1, d.col + 1, (d.message:gsub("\n", " | "))))
end
local function at(pattern, off)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local c = l:find(pattern, 1, true)
    if c then return { line = i - 1, character = c - 1 + off } end
  end
end
local uri = vim.uri_from_bufnr(buf)
local function req(method, pos, extra)
  local params = { textDocument = { uri = uri }, position = pos }
  for k, v in pairs(extra or {}) do params[k] = v end
  local res = vim.lsp.buf_request_sync(buf, method, params, 5000)
  return res and res[id] and res[id].result
end
local comp = req("textDocument/completion", at("event.outcome", 6))
local labels = {}
for _, it in ipairs(comp.items or comp) do table.insert(labels, it.label) end
table.sort(labels)
log("completion after event. in turn_end rule: " .. table.concat(labels, ","))
local hover = req("textDocument/hover", at("param.budget", 7))
log("hover param.budget: " .. (hover.contents.value:gsub("\n", " | ")))
local def = req("textDocument/definition", at("state.note", 7))
log(string.format("definition state.note: %s:%d", vim.fn.fnamemodify(vim.uri_to_fname(def[1].uri), ":t"), def[1].range.start.line + 1))
local fmt = vim.lsp.buf_request_sync(buf, "textDocument/formatting", { textDocument = { uri = uri }, options = { tabSize = 2, insertSpaces = true } }, 5000)
log("formatting edits: " .. #(fmt[id].result or {}))
vim.fn.writefile(out, vim.env.OUT)
vim.lsp.stop_client(id)
vim.cmd("qa!")
