import { describe, expect, it } from "vitest";
import { emptyTally, readingsOf, tallyReadings } from "../../bench/readings.js";

const answer = (first: string) =>
  `${first}\nkubernetes-deploy: Deploy to Kubernetes.\nNext: read_skill(skill="<name>").`;

describe("readings", () => {
  it("are read off the first line of a list_skills answer, and only there", () => {
    expect(readingsOf(answer('Read "kuberntes" as "kubernetes", "helmm" as "helm".'))).toEqual([
      ["kuberntes", "kubernetes"],
      ["helmm", "helm"],
    ]);
    expect(readingsOf('kubernetes-deploy: Deploy.\nRead "a" as "b".')).toEqual([]);
  });

  it("are tallied: the mistake read as its stem, as another word, or unread; other words apart", () => {
    const tally = emptyTally();
    const mistake = (from: string, to: string) => ({ from, to, mistake: "deletion" as const });
    tallyReadings(tally, mistake("neighbours", "neighbour"), answer('Read "neighbour" as "neighbours".'));
    tallyReadings(tally, mistake("spare", "spar"), answer('Read "spar" as "span", "pager" as "page".'));
    tallyReadings(tally, mistake("robust", "robst"), answer("kubernetes-deploy: Deploy."));
    tallyReadings(tally, undefined, answer('Read "fetcher" as "fetched".'));
    expect(tally).toEqual({ meant: 1, another: 1, unread: 1, others: 2 });
  });
});
