-- memls language server for Neovim 0.11+.
--
-- Copy this file to ~/.config/nvim/lsp/memls.lua and add
--   vim.lsp.enable('memls')
-- to init.lua. The server attaches to Markdown buffers but only acts on
-- memory documents (files in a memory root); see docs/editors.md.
return {
  cmd = { 'memls', 'serve' },
  filetypes = { 'markdown' },
  -- One server per repository: the git top level, else (outside a repository)
  -- the memory folder itself. The order is the priority.
  root_markers = { '.git', 'MEMORY.md', '.memory-index.json' },
  -- Settings (docs/editors.md, "Settings"), e.g.
  --   { settings = { severity = { ['unknown-key'] = 'off' }, index = { onSave = 'auto' } } }
  init_options = { settings = {} },
}
