/** Code points a plane of Unicode holds: a plane's table is indexed by `code & 0xffff`. */
export const PLANE_SIZE = 0x10000;
const PLANES = 17;

/**
 * A byte for each code point, remembered by its finder (a character's kind, classified when first met),
 * in a table for each plane made when the plane is first asked for: 64 KiB a plane met, 1.1 MiB for all
 * 17, whatever a text holds. A byte is 0 until its finder sets it.
 */
export class PlaneTables {
  private readonly tables = new Array<Uint8Array | undefined>(PLANES).fill(undefined);

  /** The table of the plane holding `code`. */
  of(code: number): Uint8Array {
    const plane = code >>> 16;
    let table = this.tables[plane];
    if (table === undefined) {
      table = new Uint8Array(PLANE_SIZE);
      this.tables[plane] = table;
    }
    return table;
  }
}
