/** The shapes API tests read answers as: a server-side Table and a Status. */
export interface TableBody {
  columnDefinitions: { name: string; priority?: number }[];
  rows: { cells: unknown[] }[];
}

export interface StatusBody {
  code: number;
  reason: string;
  message: string;
  details?: { name?: string; kind?: string; group?: string; causes?: { field?: string; reason?: string; message: string }[] };
}
