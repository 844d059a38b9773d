/** CPU profiles of chosen phases of a child process, through the inspector protocol. */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

let session: Session | undefined;

function post(method: string, params?: object): Promise<unknown> {
  return new Promise((resolve, reject) => {
    session?.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

export async function startProfile(): Promise<void> {
  if (session === undefined) {
    session = new Session();
    session.connect();
    await post("Profiler.enable");
    await post("Profiler.setSamplingInterval", { interval: 200 });
  }
  await post("Profiler.start");
}

/** Stops the running profile and writes it (a `.cpuprofile` Chrome DevTools can open). */
export async function stopProfile(path: string): Promise<string> {
  const { profile } = (await post("Profiler.stop")) as { profile: unknown };
  writeFileSync(path, JSON.stringify(profile));
  return path;
}
