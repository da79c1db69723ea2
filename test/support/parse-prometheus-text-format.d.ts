/** Types for parse-prometheus-text-format (it ships none): what its one function returns, as its README shows. */
declare module "parse-prometheus-text-format" {
  /** One sample of a family; every number as the text it was written in. Summaries and histograms fold theirs. */
  export interface Sample {
    labels?: Record<string, string>;
    value?: string;
    timestamp_ms?: string;
    count?: string;
    sum?: string;
    /** A summary's samples by quantile. */
    quantiles?: Record<string, string>;
    /** A histogram's cumulative counts by upper bound (`le`). */
    buckets?: Record<string, string>;
  }
  export interface MetricFamily {
    name: string;
    help: string;
    /** The `# TYPE` line's word in upper case (COUNTER, GAUGE, SUMMARY, HISTOGRAM…); UNTYPED without one. */
    type: string;
    metrics: Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
