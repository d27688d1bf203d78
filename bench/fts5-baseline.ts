import Database from "better-sqlite3";
import type { Skill } from "../src/catalog/index.js";

/**
 * The peer baseline the issue compares against: SQLite FTS5 BM25 over name and description with the
 * query's words OR-ed, equal column weights, and FTS5's `porter unicode61` tokenizer (case folding and
 * Porter stemming; with plain `unicode61` it scores lower than the figures the issue quotes, with porter it
 * matches them). Returns `<pack>/<name>` ids.
 */
export function buildFts5Baseline(skills: readonly Skill[]): {
  search(query: string, limit: number): string[];
  close(): void;
} {
  const db = new Database(":memory:");
  db.exec(
    "CREATE VIRTUAL TABLE skills USING fts5(id UNINDEXED, name, description, tokenize = 'porter unicode61')",
  );
  const insert = db.prepare("INSERT INTO skills (id, name, description) VALUES (?, ?, ?)");
  db.transaction(() => {
    for (const skill of skills) insert.run(skill.id, skill.name, skill.description);
  })();
  const select = db.prepare<[string, number], { id: string }>(
    "SELECT id FROM skills WHERE skills MATCH ? ORDER BY bm25(skills) LIMIT ?",
  );
  return {
    search(query, limit) {
      const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
      if (words.length === 0) return [];
      // Quoted, so words like AND, OR, NOT or NEAR stay plain words.
      const match = words.map((word) => `"${word}"`).join(" OR ");
      return select.all(match, limit).map((row) => row.id);
    },
    close() {
      db.close();
    },
  };
}
