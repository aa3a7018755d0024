/**
 * Holds the layout of AGENTS.md: imports flow down the table of 'Imports' (which folder may import
 * which, and why), doors are entered through their index.ts, _ files stay in their folder, the
 * PAdES rooms import only the rooms below them, the pure folders stay pure, only cli/ uses the
 * client and only config/env.ts reads the environment. The rules are import-rules.ts's functions
 * over a tree of sources: run here on src/, and below on small trees with a bad import planted,
 * each of which they must refuse with a message that says what to do.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientErrors, doorErrors, environmentReaders, folderImportErrors, parseImportTable, privateFileErrors, pureErrors, readTree, roomErrors, type Tree } from './import-rules';

const ROOT = resolve(__dirname, '../../..');

describe('the import graph (AGENTS.md)', () => {
  const tree = readTree(resolve(ROOT, 'src'));
  const rows = parseImportTable(readFileSync(resolve(ROOT, 'AGENTS.md'), 'utf8'));

  it("imports flow down the table of AGENTS.md 'Imports': each folder imports what its row lists, and uses all of it", () => {
    expect(folderImportErrors(tree, rows)).toEqual([]);
  });

  it('a folder with an index.ts is entered only through it', () => {
    expect(doorErrors(tree)).toEqual([]);
  });

  it('a _-prefixed file is private to its folder: imported only from there, and no index.ts re-exports it', () => {
    expect(privateFileErrors(tree)).toEqual([]);
  });

  it('the PAdES rooms import only the rooms below them (cms, pdf, stamp, sign, validate)', () => {
    expect(roomErrors(tree)).toEqual([]);
  });

  it('pades/, evm/, ecdsa/, pki/, der/ and api/base64-repair.ts are pure: no fs, network, framework or clock', () => {
    expect(pureErrors(tree)).toEqual([]);
  });

  it('only cli/ imports the TypeScript client (clients/typescript), and only its public face', () => {
    expect(clientErrors(tree)).toEqual([]);
  });

  it('only config/env.ts reads process.env', () => {
    expect(environmentReaders(tree)).toEqual(['config/env.ts']);
  });
});

/** A small src/: entry points, an HTTP layer, workers, a chip, a store, the domain. */
const TABLE = `
# a map

## Imports

| folder | may import | why |
|---|---|---|
| \`main.ts\` | \`cli\` | the entry |
| \`cli\` | \`service\`, \`workers\` | commands |
| \`service\` | \`api\` | listeners |
| \`api\` | \`workers\` | routes |
| \`workers\` | \`store\` | work in processes; files in store |
| \`chip\` | | keys |
| \`store\` | | files |
| \`domain\` | | words |

## Next section
`;

function plant(files: Record<string, string>): Tree {
  const base: Record<string, string> = {
    'main.ts': "import { run } from './cli/run';",
    'cli/run.ts': "import { serve } from '../service/server';\nimport { pool } from '../workers';",
    'service/server.ts': "import { app } from '../api/app';",
    'api/app.ts': "import { pool } from '../workers';\nimport { LocalsignError } from '../domain/errors';",
    'workers/index.ts': "export { pool } from './pool';",
    'workers/pool.ts': "import { write } from '../store/files';\nimport { frame } from './_frame';",
    'workers/_frame.ts': '',
    'chip/keys.ts': '',
    'store/files.ts': '',
    'domain/errors.ts': '',
  };
  return new Map(Object.entries({ ...base, ...files }));
}

describe('the rules refuse a planted bad import, saying what to do', () => {
  const rows = parseImportTable(TABLE);

  it('the small tree as planted passes every rule', () => {
    const tree = plant({});
    expect([folderImportErrors(tree, rows), doorErrors(tree), privateFileErrors(tree), pureErrors(tree), clientErrors(tree), environmentReaders(tree)]).toEqual([[], [], [], [], [], []]);
  });

  it('an import up the table: which folder is above which, and where the shared piece goes', () => {
    const tree = plant({ 'workers/pool.ts': "import { write } from '../store/files';\nimport { frame } from './_frame';\nimport { app } from '../api/app';" });
    expect(folderImportErrors(tree, rows)).toEqual([
      "src/workers/pool.ts imports ../api/app: src/workers may not import src/api: api is above workers in AGENTS.md 'Imports' (imports flow down, never back up); move the piece both need down, into the folder that owns it or domain/ for types and errors, or have api pass it in",
    ]);
  });

  it('an import down the table that the row does not list: what the row allows, and how to add it', () => {
    const tree = plant({ 'workers/pool.ts': "import { write } from '../store/files';\nimport { frame } from './_frame';\nexport { keys } from '../chip/keys';" });
    expect(folderImportErrors(tree, rows)).toEqual([
      "src/workers/pool.ts imports ../chip/keys: src/workers may import store, domain (AGENTS.md 'Imports'), not chip; chip is below workers, so if workers needs it, add chip to the row of workers there, with the reason",
    ]);
  });

  it('cli never imports api, whatever the table says', () => {
    const tree = plant({ 'cli/run.ts': "import { serve } from '../service/server';\nimport { pool } from '../workers';\nimport('../api/app');" });
    expect(folderImportErrors(tree, rows)[0]).toMatch(/^src\/cli\/run\.ts imports \.\.\/api\/app: cli never imports api, the CLI starts the HTTP layer through service\/.*; call service\//);
    const granted = TABLE.replace('| `service`, `workers` | commands |', '| `service`, `api`, `workers` | commands |');
    expect(folderImportErrors(tree, parseImportTable(granted))).toContain("AGENTS.md 'Imports' lets cli import api, which it never may: the CLI starts the HTTP layer through service/, which also recovers, retains and drains it");
  });

  it('a folder without a row, a row listing what it does not use, a row listing a folder above it', () => {
    const tree = plant({ 'net/http.ts': "import { write } from '../store/files';" });
    expect(folderImportErrors(tree, rows)).toContain("src/net has no row in AGENTS.md 'Imports': add one below the folders that import it and above the ones it imports, saying what it may import and why");
    const stale = TABLE.replace('| `store` | work in', '| `store`, `chip` | work in');
    expect(folderImportErrors(plant({}), parseImportTable(stale))).toEqual(["AGENTS.md 'Imports': workers lists chip, but nothing in src/workers imports it: take chip off the row"]);
    const upward = TABLE.replace('| `chip` | | keys |', '| `chip` | `api` | keys |');
    expect(folderImportErrors(plant({}), parseImportTable(upward))).toContain("AGENTS.md 'Imports': chip lists api, which is not below it; a folder imports only folders further down the table");
    expect(() => parseImportTable('# no table here')).toThrow("AGENTS.md has no '## Imports' section");
  });

  it('a door walked around, a _ file reached from outside or re-exported by a door', () => {
    const tree = plant({ 'api/app.ts': "import { pool } from '../workers/pool';\nimport { frame } from '../workers/_frame';", 'workers/index.ts': "export { pool } from './pool';\nexport { frame } from './_frame';" });
    expect(doorErrors(tree)).toEqual([
      'src/api/app.ts imports ../workers/pool: enter workers/ through its index.ts (export what you need there)',
      'src/api/app.ts imports ../workers/_frame: enter workers/ through its index.ts (export what you need there)',
    ]);
    expect(privateFileErrors(tree)).toEqual([
      'src/api/app.ts imports ../workers/_frame, private to workers/: have a public file there export what you need',
      'src/workers/index.ts re-exports ./_frame: a door names public files only (rename the file without _ if callers need it)',
    ]);
  });

  it('a PAdES room importing a room above it; a pure file reading the disk or the clock; the client outside cli/; the environment outside config/env.ts', () => {
    const tree = plant({
      'pades/pdf/reader.ts': "import { sign } from '../sign/prepare';\nimport { readFileSync } from 'node:fs';\nconst t = Date.now();",
      'pades/sign/prepare.ts': '',
      'api/base64-repair.ts': "import { createWriteStream } from 'node:fs';",
      'api/app.ts': "import { LocalsignClient } from '../../clients/typescript/src/index';\nconst home = process.env.HOME;",
    });
    expect(roomErrors(tree)).toEqual(['src/pades/pdf/reader.ts imports ../sign/prepare, a room above it (cms, pdf, stamp, sign, validate): move the piece down into the lower room']);
    expect(pureErrors(tree)).toEqual([
      'src/pades/pdf/reader.ts imports node:fs, and it is pure: pass the data in from the caller',
      'src/pades/pdf/reader.ts reads the clock, and it is pure: take the time as a parameter',
      'src/api/base64-repair.ts imports node:fs, and it is pure: pass the data in from the caller',
    ]);
    expect(clientErrors(tree)).toEqual(['src/api/app.ts imports ../../clients/typescript/src/index: only cli/ uses the client, through clients/typescript/src/index']);
    expect(environmentReaders(tree)).toEqual(['api/app.ts']);
  });
});
