-- memls language server for Neovim 0.11+.
--
-- Copy this file to ~/.config/nvim/lsp/memls.lua and add
--   vim.lsp.enable('memls')
-- to init.lua. The server attaches to Markdown buffers but only acts on
-- memory documents (files in a memory root); see docs/editors.md.
return {
  cmd = { 'memls', 'serve' },
  filetypes = { 'markdown' },
  -- The nearest folder holding one of these becomes the workspace folder.
  root_markers = { 'MEMORY.md', '.memory-index.json', '.git' },
  -- Settings (docs/editors.md, "Settings"), e.g.
  --   { settings = { severity = { ['unknown-key'] = 'off' }, index = { onSave = 'auto' } } }
  init_options = { settings = {} },
}
