// Runs SQL with DuckDB (@duckdb/node-api), an independent reader of
// blockwarc's Parquet tables, and prints the result rows as JSON for a Go
// test to assert on.
//
// usage: node duckdb-query.mjs INPUT.json
// INPUT.json: {"setup": [SQL...], "queries": {"NAME": SQL, ...}}
//   setup:   statements run first, in order (views over the tables)
// Output on stdout: {"NAME": [{column: value, ...}, ...], ...}, values as
// getRowObjectsJson gives them (integers above 2^53 and timestamps as
// strings, NULL as null).
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
// No network: never try to fetch an extension.
const db = await DuckDBInstance.create(':memory:', {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
});
const con = await db.connect();
await con.run("SET TimeZone = 'UTC'");
for (const sql of input.setup) {
  await con.run(sql);
}
const out = {};
for (const [name, sql] of Object.entries(input.queries)) {
  const r = await con.runAndReadAll(sql);
  out[name] = r.getRowObjectsJson();
}
process.stdout.write(JSON.stringify(out) + '\n');
