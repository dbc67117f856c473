-- Evaluates the Neovim configuration that docs/editors.md gives, inside Neovim.
--
-- Run by tests/e2e/test_editor_docs.py as
--   nvim --headless -u NONE -i NONE -n -c "luafile doc_blocks.lua"
-- MEMLS_DOC_INPUT names a JSON file:
--   { "compile": [lua, ...],          every Lua block of the document
--     "config_file": path,            editors/neovim/memls.lua
--     "lsp_config": lua,              the Neovim 0.11 vim.lsp.config block
--     "lspconfig": lua }              the nvim-lspconfig block
-- and MEMLS_DOC_RESULT where the findings go, as JSON. Neovim 0.7 has neither
-- vim.lsp.config nor nvim-lspconfig, so those are stand-ins that record what
-- the block hands them; the values are then checked on the Python side.

local input_path = assert(os.getenv('MEMLS_DOC_INPUT'), 'MEMLS_DOC_INPUT is not set')
local result_path = assert(os.getenv('MEMLS_DOC_RESULT'), 'MEMLS_DOC_RESULT is not set')

local function read_file(path)
  local file = assert(io.open(path, 'r'))
  local text = file:read('*a')
  file:close()
  return text
end

-- A copy without functions (JSON cannot hold them); a function becomes '<function>'.
local function plain(value)
  if type(value) == 'function' then
    return '<function>'
  end
  if type(value) ~= 'table' then
    return value
  end
  local out = {}
  for k, v in pairs(value) do
    out[k] = plain(v)
  end
  return out
end

local result = { compile_errors = {} }

local function evaluate()
  local input = vim.fn.json_decode(read_file(input_path))

  for i, code in ipairs(input.compile) do
    local _, err = loadstring(code, 'block ' .. i)
    result.compile_errors[i] = err or vim.NIL
  end

  result.config_file = plain(dofile(input.config_file))

  do
    local calls = { configs = {}, enabled = {} }
    vim.lsp.config = function(name, config)
      calls.configs[name] = plain(config)
    end
    vim.lsp.enable = function(name)
      table.insert(calls.enabled, name)
    end
    assert(loadstring(input.lsp_config, 'vim.lsp.config block'))()
    vim.lsp.config, vim.lsp.enable = nil, nil
    result.lsp_config = calls
  end

  do
    local configs, setups, root_markers = {}, {}, {}
    package.preload['lspconfig.configs'] = function()
      return configs
    end
    package.preload['lspconfig'] = function()
      local util = {
        root_pattern = function(...)
          root_markers = { ... }
          return function() end
        end,
      }
      return setmetatable({ util = util }, {
        __index = function(_, name)
          if configs[name] == nil then
            return nil
          end
          return { setup = function(opts) setups[name] = plain(opts) end }
        end,
      })
    end
    assert(loadstring(input.lspconfig, 'lspconfig block'))()
    result.lspconfig = { configs = plain(configs), setups = setups, root_markers = root_markers }
  end
end

local ok, err = xpcall(evaluate, debug.traceback)
if not ok then
  result.error = tostring(err)
end
local file = assert(io.open(result_path, 'w'))
file:write(vim.fn.json_encode(result))
file:close()
vim.cmd(ok and 'qall!' or 'cquit 1')
