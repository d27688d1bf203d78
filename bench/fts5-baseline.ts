// A CommonJS module whose exports Node cannot name statically: imported whole.
import sqlite from "node-sqlite3-wasm";
import type { Skill } from "../src/catalog/index.js";

/**
 * The peer baseline the issue compares against: SQLite FTS5 BM25 over name and description with the
 * query's words OR-ed, equal column weights, and FTS5's `porter unicode61` tokenizer (case folding and
 * Porter stemming; with plain `unicode61` it scores lower than the figures the issue quotes, with porter it
 * matches them). Returns `<pack>/<name>` ids. SQLite runs as WebAssembly, so that installing the project
 * compiles nothing.
 */
export function buildFts5Baseline(skills: readonly Skill[]): {
  search(query: string, limit: number): string[];
  close(): void;
} {
  const db = new sqlite.Database(":memory:");
  db.exec(
    "CREATE VIRTUAL TABLE skills USING fts5(id UNINDEXED, name, description, tokenize = 'porter unicode61')",
  );
  const insert = db.prepare("INSERT INTO skills (id, name, description) VALUES (?, ?, ?)");
  db.exec("BEGIN");
  for (const skill of skills) insert.run([skill.id, skill.name, skill.description]);
  db.exec("COMMIT");
  // This SQLite's statements hold WebAssembly memory until finalized.
  insert.finalize();
  const select = db.prepare("SELECT id FROM skills WHERE skills MATCH ? ORDER BY bm25(skills) LIMIT ?");
  return {
    search(query, limit) {
      const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
      if (words.length === 0) return [];
      // Quoted, so words like AND, OR, NOT or NEAR stay plain words.
      const match = words.map((word) => `"${word}"`).join(" OR ");
      return select.all([match, limit]).map((row) => String(row.id));
    },
    close() {
      select.finalize();
      db.close();
    },
  };
}
