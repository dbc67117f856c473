-- One editing session against the memls server in a real Neovim 0.11, set up
-- with the README's `vim.lsp.config` block exactly as a reader copies it.
--
-- Run by tests/e2e/test_neovim_011.py as
--   nvim --headless -u NONE -i NONE -n -c "luafile memls_session_011.lua"
-- in the repository's top folder, with these environment variables:
--   MEMLS_E2E_SETUP      the Lua block copied from the README
--   MEMLS_E2E_CODELENS   the README's CodeLens block (refresh autocmd, key map)
--   MEMLS_E2E_REPO       the repository (holds .git, README.md, CLAUDE.md, memory/)
--   MEMLS_E2E_RESULT     where to write what happened, as JSON
--   MEMLS_E2E_WAIT_MS    how long each wait may take
--   MEMLS_E2E_FRESH      the text of a new memory, written with :w
--   MEMLS_E2E_FRESH2     the text of a second new memory
--   MEMLS_E2E_LSP_LOG    (optional) set: Neovim logs the LSP traffic at debug level
--                        to $HOME/.local/state/nvim/lsp.log
-- The script only acts and records; the pytest side asserts. Each step runs
-- even when an earlier one failed; a failed step's message goes to
-- errors[step]. The user's configuration also formats on save.

local setup = assert(os.getenv('MEMLS_E2E_SETUP'), 'MEMLS_E2E_SETUP is not set')
local repo = assert(os.getenv('MEMLS_E2E_REPO'), 'MEMLS_E2E_REPO is not set')
local result_path = assert(os.getenv('MEMLS_E2E_RESULT'), 'MEMLS_E2E_RESULT is not set')
local wait_ms = tonumber(os.getenv('MEMLS_E2E_WAIT_MS') or '20000')
local memory = repo .. '/memory'

local result = {
  nvim = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor),
  errors = vim.empty_dict(),
  notifications = {},
}

-- What the editor would show the user (errors of requests, "Nothing to rename"...).
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(result.notifications, { message = tostring(msg), level = level or vim.log.levels.INFO })
  return notify(msg, level, opts)
end

-- A prompt would wait for keys that never come: record it and choose nothing.
vim.ui.select = function(items, opts, on_choice)
  local titles = {}
  for _, item in ipairs(items) do
    table.insert(titles, (opts and opts.format_item) and opts.format_item(item) or tostring(item))
  end
  table.insert(result.notifications, { message = 'unexpected menu: ' .. table.concat(titles, ' | '),
    level = vim.log.levels.ERROR })
  on_choice(nil, nil)
end
vim.ui.input = function(opts, on_confirm)
  table.insert(result.notifications, { message = 'unexpected prompt: ' .. tostring(opts and opts.prompt),
    level = vim.log.levels.ERROR })
  on_confirm(nil)
end

local function write_result()
  local file = assert(io.open(result_path, 'w'))
  file:write(vim.fn.json_encode(result))
  file:close()
end

local function read_file(path)
  local file = io.open(path, 'r')
  if file == nil then
    return nil
  end
  local text = file:read('*a')
  file:close()
  return text
end

local function wait_for(what, predicate)
  if not vim.wait(wait_ms, predicate, 50) then
    error('timed out waiting for ' .. what, 0)
  end
end

local function memls_clients(buf)
  return vim.lsp.get_clients({ name = 'memls', bufnr = buf })
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

local attach_failure = nil

-- Open a file the way a user does (:edit), and wait for memls to attach.
local function open(path)
  if attach_failure ~= nil then
    error(attach_failure, 0)
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  local attached = vim.wait(wait_ms, function()
    for _, client in ipairs(memls_clients(buf)) do
      if client.initialized then
        return true
      end
    end
    return false
  end, 50)
  if not attached then
    attach_failure = 'memls never attached to ' .. path
    error(attach_failure, 0)
  end
  return buf
end

local function find_line(buf, prefix)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line:sub(1, #prefix) == prefix then
      return i - 1, #prefix
    end
  end
  error('no line starting with ' .. prefix, 0)
end

local function diagnostics_with(buf, code)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do -- every namespace: every server
    if d.code == code then
      table.insert(out, { line = d.lnum, col = d.col, message = d.message, namespace = d.namespace })
    end
  end
  return out
end

-- Wait for a diagnostic, then give a second server time to publish its copy.
local function settled_diagnostics(buf, code)
  wait_for('a ' .. code .. ' diagnostic', function()
    return #diagnostics_with(buf, code) > 0
  end)
  vim.wait(1500, function() return false end, 50)
  return diagnostics_with(buf, code)
end

-- Apply the quick fix whose title contains `title`, as `:lua vim.lsp.buf.code_action()` does.
local function apply_fix(buf, code, title)
  local found = diagnostics_with(buf, code)[1]
  if found == nil then
    error('no ' .. code .. ' diagnostic to fix', 0)
  end
  vim.api.nvim_win_set_cursor(0, { found.line + 1, found.col })
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.title ~= nil and action.title:find(title, 1, true) ~= nil
    end,
  })
end

local function state_of(path)
  local buf = vim.fn.bufnr(path)
  return {
    disk = read_file(path),
    loaded = buf ~= -1 and vim.api.nvim_buf_is_loaded(buf),
    modified = buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified or false,
    buffer = (buf ~= -1 and vim.api.nvim_buf_is_loaded(buf)) and buffer_text(buf) or vim.NIL,
  }
end

local steps = {}

function steps.setup()
  if os.getenv('MEMLS_E2E_LSP_LOG') then vim.lsp.log.set_level('debug') end
  vim.cmd('filetype on')
  -- A user's format-on-save, as many configurations have it.
  vim.api.nvim_create_autocmd('BufWritePre', {
    callback = function(args)
      vim.lsp.buf.format({ bufnr = args.buf, timeout_ms = wait_ms })
    end,
  })
  dofile(setup)
  dofile(assert(os.getenv('MEMLS_E2E_CODELENS'), 'MEMLS_E2E_CODELENS is not set'))
end

-- README.md and CLAUDE.md of the repository are open before any memory.
function steps.servers()
  vim.cmd('edit ' .. vim.fn.fnameescape(repo .. '/README.md'))
  vim.cmd('edit ' .. vim.fn.fnameescape(repo .. '/CLAUDE.md'))
  open(memory .. '/stale.md')
  vim.wait(1500, function() return false end, 50) -- any second client would start now
  result.servers = {}
  for _, client in ipairs(vim.lsp.get_clients({ name = 'memls' })) do
    table.insert(result.servers, { root_dir = client.root_dir or vim.NIL, id = client.id })
  end
end

function steps.diagnostics_once()
  local stale = open(memory .. '/stale.md')
  result.dangling = settled_diagnostics(stale, 'dangling-superseded-by')
end

-- The safe fix of a one-sided supersession (a text edit), chosen from the menu.
function steps.quick_fix()
  local old = open(memory .. '/old.md')
  result.asymmetric_before = settled_diagnostics(old, 'asymmetric-supersession')
  apply_fix(old, 'asymmetric-supersession', "Add 'old' to supersedes")
  wait_for('the fix to reach a buffer and its diagnostic to go', function()
    return #diagnostics_with(old, 'asymmetric-supersession') == 0
      and #diagnostics_with(vim.fn.bufnr(memory .. '/new.md'), 'asymmetric-supersession') == 0
  end)
  vim.wait(1500, function() return false end, 50)
  local new = vim.fn.bufnr(memory .. '/new.md')
  result.asymmetric_after = {
    old = diagnostics_with(old, 'asymmetric-supersession'),
    new = new ~= -1 and diagnostics_with(new, 'asymmetric-supersession') or {},
  }
  vim.cmd('silent wall')
  result.quick_fix = { old = state_of(memory .. '/old.md'), new = state_of(memory .. '/new.md') }
end

-- A fix that renames a file (reserved name): offered and carried out.
function steps.reserved_fix()
  local hidden = open(memory .. '/memory-standup.md')
  settled_diagnostics(hidden, 'reserved-name')
  apply_fix(hidden, 'reserved-name', 'Rename the file')
  wait_for('standup.md to exist and be shown', function()
    return vim.uv.fs_stat(memory .. '/standup.md') ~= nil
      and vim.api.nvim_buf_get_name(0) == memory .. '/standup.md'
  end)
  result.reserved_fix = {
    old_exists = vim.uv.fs_stat(memory .. '/memory-standup.md') ~= nil,
    new = state_of(memory .. '/standup.md'),
    current = vim.api.nvim_buf_get_name(0),
  }
end

-- Rename an entry from its name line, as `grn` does (the new name given).
function steps.rename()
  local new = open(memory .. '/new.md')
  local line, col = find_line(new, 'name: ')
  vim.api.nvim_win_set_cursor(0, { line + 1, col + 1 })
  vim.lsp.buf.rename('current-rule')
  wait_for('current-rule.md to exist and be shown', function()
    return vim.uv.fs_stat(memory .. '/current-rule.md') ~= nil
      and vim.api.nvim_buf_get_name(0) == memory .. '/current-rule.md'
  end)
  result.rename = {
    new_exists = vim.uv.fs_stat(memory .. '/new.md') ~= nil,
    renamed = state_of(memory .. '/current-rule.md'),
    current = vim.api.nvim_buf_get_name(0),
    old = state_of(memory .. '/old.md'), -- hidden: written on disk, not edited
    index = read_file(memory .. '/MEMORY.md'),
  }
  -- Looked at again, the unmodified buffer is reloaded from disk by the editor.
  local old_buf = open(memory .. '/old.md')
  wait_for("old.md's buffer to follow the rename", function()
    return buffer_text(old_buf):find('superseded_by: current-rule', 1, true) ~= nil
  end)
  result.rename.old_shown = state_of(memory .. '/old.md')
end

function steps.definition()
  local old = open(memory .. '/old.md')
  local line, col = find_line(old, 'superseded_by: ')
  vim.api.nvim_win_set_cursor(0, { line + 1, col + 1 })
  vim.lsp.buf.definition()
  wait_for('the jump to the definition', function()
    return vim.api.nvim_get_current_buf() ~= old
  end)
  result.definition = {
    path = vim.api.nvim_buf_get_name(0),
    line = vim.api.nvim_win_get_cursor(0)[1] - 1,
  }
end

-- The lenses above old.md (refreshed by the README's autocmd), and a click on them:
-- two lenses share the line, so Neovim asks which one; the successor's is chosen.
function steps.codelens()
  local old = open(memory .. '/old.md')
  vim.cmd('doautocmd BufEnter') -- looked at again, as a user switching back does
  wait_for('the lenses of old.md', function()
    return #vim.lsp.codelens.get(old) > 0
  end)
  local offered = {}
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    for i, item in ipairs(items) do
      local title = opts.format_item(item)
      table.insert(offered, title)
      if title:find('superseded by', 1, true) then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
  local titles = {}
  for _, lens in ipairs(vim.lsp.codelens.get(old)) do
    table.insert(titles, lens.command and lens.command.title or vim.NIL)
  end
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local ok, err = pcall(vim.lsp.codelens.run)
  vim.ui.select = select
  if not ok then
    error(err, 0)
  end
  wait_for('the lens to open the successor', function()
    return vim.api.nvim_get_current_buf() ~= old
  end)
  local cursor = vim.api.nvim_win_get_cursor(0)
  result.codelens = { titles = titles, offered = offered, path = vim.api.nvim_buf_get_name(0),
    line = cursor[1] - 1, col = cursor[2] }
end

local function write_new(name, env)
  local buf = open(memory .. '/' .. name)
  local text = assert(os.getenv(env), env .. ' is not set')
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.cmd('write')
  wait_for('MEMORY.md to list ' .. name, function()
    local index = read_file(memory .. '/MEMORY.md')
    return index ~= nil and index:find('(' .. name .. ')', 1, true) ~= nil
  end)
end

function steps.save_index()
  write_new('fresh.md', 'MEMLS_E2E_FRESH')
  result.save_index = { index = state_of(memory .. '/MEMORY.md') }
end

-- MEMORY.md open in a hidden buffer (looked at, then left) while a memory is saved.
function steps.save_index_hidden()
  open(memory .. '/MEMORY.md')
  write_new('fresh2.md', 'MEMLS_E2E_FRESH2')
  vim.wait(1500, function() return false end, 50) -- an edit to the hidden buffer would come now
  result.save_index_hidden = { index = state_of(memory .. '/MEMORY.md') }
  open(memory .. '/MEMORY.md') -- looked at again: the editor reloads the unmodified buffer
  result.save_index_hidden.shown = state_of(memory .. '/MEMORY.md')
end

-- A memory whose frontmatter has comments, changed and saved (format on save runs).
function steps.comments()
  local buf = open(memory .. '/commented.md')
  local last = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, last, last, false, { 'One more line.' })
  vim.cmd('write')
  result.comments = state_of(memory .. '/commented.md')
end

function steps.finally()
  result.servers_at_end = #vim.lsp.get_clients({ name = 'memls' })
end

local ok = true
for _, name in ipairs({ 'setup', 'servers', 'diagnostics_once', 'quick_fix', 'reserved_fix', 'rename',
  'definition', 'codelens', 'save_index', 'save_index_hidden', 'comments', 'finally' }) do
  local step_ok, err = xpcall(steps[name], debug.traceback)
  if not step_ok then
    ok = false
    result.errors[name] = tostring(err)
  end
  write_result() -- after every step: a session cut short still tells what it saw
  if not step_ok then
    if name == 'setup' then
      break
    end
  end
end
write_result()
vim.cmd(ok and 'qall!' or 'cquit 1')
