import type { Machine } from "../../bench/report.js";

/** The machine a report under test was measured on: fixed, so that its header reads the same every run. */
export const TEST_MACHINE: Machine = {
  cpu: "Test CPU",
  cores: 2,
  memoryGiB: 8,
  node: "v20.0.0",
  os: "Linux test",
  date: "2030-01-02T03:04:05.000Z",
  commit: "abc1234",
};
