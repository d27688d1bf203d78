import { describe, expect, it } from "vitest";
import { errorMessage, problemInWords, systemProblem, unreadableFile } from "../src/shared/index.js";

/** A system error of `code`, as Node throws one. */
function systemError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: the system's own words, open '/x'`), { code });
}

// The server, the commands and the fetcher each had a table of what the codes mean, and said the same
// code three ways ("too many open files", "too many files are open", or only "EMFILE").
describe("system errors in words", () => {
  it("says a code in the one table's words, with the caller's fix", () => {
    expect(problemInWords(systemError("EMFILE"))).toBe("too many files are open (EMFILE)");
    expect(problemInWords(systemError("EACCES"), { EACCES: { fix: "run it as its owner" } })).toBe(
      "permission denied (EACCES); run it as its owner",
    );
  });

  it("takes the caller's words where it knows more of the code", () => {
    expect(problemInWords(systemError("ENOENT"), { ENOENT: { what: "it vanished" } })).toBe(
      "it vanished (ENOENT)",
    );
  });

  it("leaves a code it does not know to the caller, or says the code, or the message", () => {
    expect(problemInWords(systemError("EXDEV"))).toBeUndefined();
    expect(systemProblem(systemError("EXDEV"))).toBe("EXDEV");
    expect(systemProblem(new Error("no code"))).toBe("no code");
  });

  it("says what anything thrown says: an Error's message, or a thrown string as it is", () => {
    expect(errorMessage(new Error("no code"))).toBe("no code");
    expect(errorMessage("a thrown string")).toBe("a thrown string");
  });

  it("words a file that cannot be read as the rest of the server does", () => {
    expect(unreadableFile("--queries q.json", systemError("EMFILE"))).toBe(
      "--queries q.json cannot be read: too many files are open (EMFILE)",
    );
    expect(unreadableFile("--queries q.json", systemError("EACCES"))).toBe(
      "--queries q.json cannot be read: permission denied (EACCES); let the user this runs as read it",
    );
  });
});
