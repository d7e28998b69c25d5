// Reads blockwarc's Arrow IPC tables (`blockwarc tables -format arrow`)
// with apache-arrow, an independent reader, and prints for each table its
// row count and schema as JSON, for cmd/blockwarc/tables_test.go.
//
// usage: node arrow-check.mjs DIR
// Output: {"<table>": {"rows": n, "batches": n, "fields": [{"name", "type", "nullable"}]}}
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';

const dir = process.argv[2];
const out = {};
// Each table is a directory; files beside them (GENERATION: the commit
// the tables describe) are not tables.
const tables = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
for (const table of tables) {
  const parts = readdirSync(join(dir, table)).filter((f) => /^part-\d{5}\.arrow$/.test(f)).sort();
  let rows = 0;
  let batches = 0;
  let fields = null;
  for (const p of parts) {
    const t = tableFromIPC(readFileSync(join(dir, table, p)));
    rows += t.numRows;
    batches += t.batches.length;
    // Touch every value, so a malformed buffer fails here.
    for (const f of t.schema.fields) {
      const col = t.getChild(f.name);
      for (let i = 0; i < t.numRows; i++) col.get(i);
    }
    fields ??= t.schema.fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable }));
  }
  out[table] = { rows, batches, parts: parts.length, fields };
}
process.stdout.write(JSON.stringify(out) + '\n');
