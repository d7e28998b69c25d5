// Runs SQL statements read from standard input (separated by ";") with
// DuckDB (@duckdb/node-api, the DuckDB the tests use) and prints each
// query's result as an aligned text table, so that `make run` shows the
// example queries' results to a newcomer without a DuckDB shell.
//
// usage: node duckdb-show.mjs < queries.sql
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const sql = readFileSync(0, 'utf8');
// No network: never try to fetch an extension.
const db = await DuckDBInstance.create(':memory:', {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
});
const con = await db.connect();
await con.run("SET TimeZone = 'UTC'");
const width = 48; // longest cell shown
const cell = (v) => {
  let s = v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  s = s.replace(/\s+/g, ' ');
  return s.length > width ? s.slice(0, width - 1) + '…' : s;
};
for (const stmt of sql.split(/;\s*\n/).map((s) => s.trim()).filter((s) => s !== '')) {
  if (/^CREATE\s/i.test(stmt)) {
    await con.run(stmt);
    continue;
  }
  const r = await con.runAndReadAll(stmt);
  const cols = r.columnNames();
  const rows = r.getRowsJson().map((row) => row.map(cell));
  const w = cols.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(w[i])).join('  ').trimEnd();
  console.log('\n' + stmt.split('\n')[0] + (stmt.includes('\n') ? ' …' : ''));
  console.log(line(cols));
  console.log(line(w.map((n) => '-'.repeat(n))));
  for (const row of rows) console.log(line(row));
  console.log(`(${rows.length} row${rows.length === 1 ? '' : 's'})`);
}
