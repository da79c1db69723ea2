/**
 * The REST load generator of the services case, in a process of its own (run.ts pins it to the client core):
 * autocannon with `connections` keep-alive connections for `seconds`, against one URL. autocannon keeps latencies
 * in whole milliseconds; every response's time is also taken here from its `response` event (a float in ms, the
 * same hrtime autocannon measures), so the percentiles resolve the ~0.1 ms answers at concurrency 1.
 *   node --import tsx bench/peers/load-rest.ts <url> <connections> <seconds>
 * prints `RESULT {"requests":…,"seconds":…,"rps":…,"p50":…,"p99":…,"non2xx":…,"errors":…}` (latencies in ms).
 */
import autocannon from "autocannon";

const [url, connections, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const latencies: number[] = [];
const started = performance.now();
const instance = autocannon({ url, connections, duration: seconds, pipelining: 1, timeout: 10 }, (err, result) => {
  if (err) {
    process.stderr.write(`load-rest: ${String(err)}\n`);
    process.exit(1);
  }
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] : NaN);
  const ok = result["2xx"];
  process.stdout.write(
    `RESULT ${JSON.stringify({
      requests: ok,
      seconds: +elapsed.toFixed(3),
      rps: ok / (result.duration || elapsed),
      p50: q(0.5),
      p99: q(0.99),
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    })}\n`,
  );
});
instance.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
  if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
});
