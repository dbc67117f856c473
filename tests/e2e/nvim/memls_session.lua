-- One editing session against the memls server, in a real (headless) Neovim.
--
-- Run by tests/e2e/test_neovim.py as
--   nvim --headless -u NONE -i NONE -n -c "luafile memls_session.lua"
-- with these environment variables:
--   MEMLS_E2E_SETUP   the Lua set-up block copied from docs/editors.md
--   MEMLS_E2E_MEMORY  the memory folder of the temporary workspace
--   MEMLS_E2E_RESULT  where to write what happened, as JSON
--   MEMLS_E2E_WAIT_MS how long each wait may take
-- The script only observes and records; the pytest side asserts. Each step
-- runs even when an earlier one failed, and a failed step's message goes to
-- `errors[step]`; the exit status is 0 only when every step succeeded (else
-- 1, via :cquit).

local setup = assert(os.getenv('MEMLS_E2E_SETUP'), 'MEMLS_E2E_SETUP is not set')
local memory = assert(os.getenv('MEMLS_E2E_MEMORY'), 'MEMLS_E2E_MEMORY is not set')
local result_path = assert(os.getenv('MEMLS_E2E_RESULT'), 'MEMLS_E2E_RESULT is not set')
local wait_ms = tonumber(os.getenv('MEMLS_E2E_WAIT_MS') or '20000')

local result = {
  nvim = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor),
  errors = vim.empty_dict(),
}

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

-- Wait for `predicate`, or fail the session saying what never happened.
local function wait_for(what, predicate)
  if not vim.wait(wait_ms, predicate, 50) then
    error('timed out waiting for ' .. what, 0)
  end
end

-- Set when memls never attached: later steps fail at once instead of waiting again.
local attach_failure = nil

local function open(name)
  if attach_failure ~= nil then
    error(attach_failure, 0)
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(memory .. '/' .. name))
  local buf = vim.api.nvim_get_current_buf()
  local attached = vim.wait(wait_ms, function()
    for _, client in pairs(vim.lsp.buf_get_clients(buf)) do
      if client.name == 'memls' and client.initialized then
        return true
      end
    end
    return false
  end, 50)
  if not attached then
    attach_failure = 'memls never attached to ' .. name
    error(attach_failure, 0)
  end
  return buf
end

-- The 0-based line of the first line starting with `prefix`, and the column after it.
local function find_line(buf, prefix)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line:sub(1, #prefix) == prefix then
      return i - 1, #prefix
    end
  end
  error('no line starting with ' .. prefix, 0)
end

local function first_location(responses)
  for _, response in pairs(responses or {}) do
    local items = response.result
    if items ~= nil and items.uri ~= nil then
      items = { items }
    end
    for _, item in ipairs(items or {}) do
      local range = item.targetSelectionRange or item.range
      return { path = vim.uri_to_fname(item.targetUri or item.uri), line = range.start.line }
    end
  end
  return nil
end

local function supports_definition(buf)
  for _, client in pairs(vim.lsp.buf_get_clients(buf)) do
    if client.name == 'memls' and client.resolved_capabilities.goto_definition then
      return true
    end
  end
  return false
end

local steps = {}

function steps.setup()
  vim.cmd('filetype on')
  dofile(setup)
end

-- A dangling superseded_by is reported in the buffer.
function steps.diagnostic()
  local stale = open('stale.md')
  wait_for('the dangling-superseded-by diagnostic', function()
    for _, d in ipairs(vim.diagnostic.get(stale)) do
      if d.code == 'dangling-superseded-by' then
        result.diagnostic = { code = d.code, line = d.lnum, col = d.col, message = d.message }
        return true
      end
    end
    return false
  end)
end

-- The position of the superseded_by value in old.md (names a real entry).
local function successor_reference()
  local old = open('old.md')
  if not supports_definition(old) then
    error('the server does not offer textDocument/definition', 0)
  end
  local line, col = find_line(old, 'superseded_by: ')
  return old, line, col + 1
end

-- Go to definition, as a plugin would ask for it.
function steps.definition()
  local old, line, col = successor_reference()
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(old) },
    position = { line = line, character = col },
  }
  -- The first scan may still be loading the successor; ask until it answers.
  wait_for('a definition for superseded_by', function()
    result.definition = first_location(
      vim.lsp.buf_request_sync(old, 'textDocument/definition', params, wait_ms))
    return result.definition ~= nil
  end)
end

-- And the jump a user makes: the cursor lands on the target's name line.
function steps.jump()
  local old, line, col = successor_reference()
  vim.api.nvim_win_set_cursor(0, { line + 1, col })
  vim.lsp.buf.definition()
  wait_for('the jump to the definition', function()
    return vim.api.nvim_get_current_buf() ~= old
  end)
  result.jump = {
    path = vim.api.nvim_buf_get_name(0),
    line = vim.api.nvim_win_get_cursor(0)[1] - 1,
  }
end

-- Write a new memory with :w; the server regenerates MEMORY.md.
function steps.save()
  local fresh = open('fresh.md')
  local text = assert(os.getenv('MEMLS_E2E_NEW_ENTRY'), 'MEMLS_E2E_NEW_ENTRY is not set')
  vim.api.nvim_buf_set_lines(fresh, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.cmd('write')
  local index_path = memory .. '/MEMORY.md'
  wait_for('MEMORY.md to list fresh.md', function()
    local index = read_file(index_path)
    return index ~= nil and index:find('(fresh.md)', 1, true) ~= nil
  end)
  result.index = read_file(index_path)
end

local ok = true
for _, name in ipairs({ 'setup', 'diagnostic', 'definition', 'jump', 'save' }) do
  local step_ok, err = xpcall(steps[name], debug.traceback)
  if not step_ok then
    ok = false
    result.errors[name] = tostring(err)
    if name == 'setup' then
      break
    end
  end
end
write_result()
if ok then
  vim.cmd('qall!')
else
  vim.cmd('cquit 1')
end
