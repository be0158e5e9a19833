/** A few in-process counters rendered as Prometheus text (no dependency needed). */

type Labels = Record<string, string>;

export class Metrics {
  private readonly counters = new Map<string, { help: string; values: Map<string, number> }>();

  constructor() {
    this.define("toolshed_http_requests_total", "HTTP requests by method and status");
    this.define("toolshed_calls_submitted_total", "Tool calls submitted, by decision");
    this.define("toolshed_jobs_finished_total", "Jobs finished by a worker, by status");
    this.define("toolshed_sandbox_retries_total", "Jobs retried because the sandbox was unavailable");
    this.define("toolshed_jobs_reconciled_total", "Jobs queued again because their queue entry was gone");
  }

  private define(name: string, help: string): void {
    this.counters.set(name, { help, values: new Map() });
  }

  inc(name: string, labels: Labels = {}, by = 1): void {
    const counter = this.counters.get(name);
    if (!counter) return;
    const key = Object.entries(labels)
      .map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, "_")}"`)
      .join(",");
    counter.values.set(key, (counter.values.get(key) ?? 0) + by);
  }

  render(): string {
    const lines: string[] = [];
    for (const [name, { help, values }] of this.counters) {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      if (values.size === 0) lines.push(`${name} 0`);
      for (const [key, v] of values) lines.push(key ? `${name}{${key}} ${v}` : `${name} ${v}`);
    }
    lines.push(
      `# HELP toolshed_process_rss_bytes Resident set size`,
      "# TYPE toolshed_process_rss_bytes gauge",
    );
    lines.push(`toolshed_process_rss_bytes ${process.memoryUsage().rss}`);
    return `${lines.join("\n")}\n`;
  }
}
