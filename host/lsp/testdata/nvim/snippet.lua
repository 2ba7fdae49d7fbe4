-- Run after docs/lsp.md's Neovim snippet as init.lua: waits for the
-- diagnostics its client publishes for the open buffer, writes them and
-- the buffer's filetype to $OUT.
local buf = vim.api.nvim_get_current_buf()
vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
local out = { "filetype " .. vim.bo[buf].filetype }
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(out, string.format("diagnostic %d:%d %s", d.lnum + 1, d.col + 1, (d.message:gsub("\n", " | "))))
end
vim.fn.writefile(out, vim.env.OUT)
vim.cmd("qa!")
