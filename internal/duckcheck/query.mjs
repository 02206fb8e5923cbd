// Runs one SQL query in DuckDB (@duckdb/node-api) and prints the rows as JSON.
// Usage: node query.mjs "SQL"
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const reader = await conn.runAndReadAll(sql);
const rows = reader.getRowObjectsJson();
process.stdout.write(JSON.stringify(rows));
