/**
 * The directory layout under `$DAEMON_HOME/cosmovisor` (docs/spec/sidecar.md §2) and the `current` link: resolving it
 * (created → genesis when missing, an error when it is not a link or dangles — never a silent fallback), and
 * switching it atomically (a temporary link in `.tmp/`, then rename over `current`; D6 #1).
 */
import { chmod, lstat, mkdir, readdir, readlink, rename, rm, stat, symlink, unlink } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { readCurrentName } from "./node/info-file.js";
import { upgradeDirName } from "./names.js";
import { ROOT_NAME } from "./config/index.js";
import { VisorError } from "./errors.js";
import { randomHex } from "../../base/file.js";

export interface LayoutConfig {
  home: string;
  name: string;
  disableRecase: boolean;
}

const errnoText: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  ENOTDIR: "not a directory",
  EEXIST: "file exists",
  EISDIR: "is a directory",
  ELOOP: "too many levels of symbolic links",
};

/** `<op> <path>: <reason>` as Go words *PathError. */
export function pathError(op: string, path: string, e: unknown): Error & { code?: string } {
  const code = (e as { code?: string }).code;
  const err = new Error(`${op} ${path}: ${(code && errnoText[code]) ?? (e as Error).message}`) as Error & { code?: string };
  err.code = code;
  return err;
}

/**
 * plan.EnsureBinary: the file exists and is a regular file (symlinks followed), then `a+x` is added when
 * missing.
 */
export async function ensureBinary(path: string): Promise<void> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw pathError("stat", path, e);
  }
  if (!st.isFile()) throw new VisorError(`${basename(path)} is not a regular file`);
  if ((st.mode & 0o111) !== 0o111) await chmod(path, (st.mode & 0o7777) | 0o111);
}

export const random = (): string => randomHex(6);

export class Layout {
  readonly root: string;

  constructor(readonly cfg: LayoutConfig) {
    this.root = join(cfg.home, ROOT_NAME);
  }

  get genesisDir(): string {
    return join(this.root, "genesis");
  }
  get genesisBin(): string {
    return join(this.genesisDir, "bin", this.cfg.name);
  }
  get upgradesDir(): string {
    return join(this.root, "upgrades");
  }
  get currentLink(): string {
    return join(this.root, "current");
  }
  get tmpDir(): string {
    return join(this.root, ".tmp");
  }
  get dataDir(): string {
    return join(this.cfg.home, "data");
  }
  /** The file the node's keeper writes at the halt height. */
  get infoFile(): string {
    return join(this.dataDir, "upgrade-info.json");
  }
  /** The manual plan written by `add-upgrade --upgrade-height` (docs/spec/sidecar.md §9). */
  get manualRecord(): string {
    return join(this.root, "manual-upgrade.json");
  }

  /** `upgrades/<dir>` for a plan name (recased, path-escaped; `invalid upgrade name` for "", ".", ".."). */
  upgradeDir(planName: string): string {
    return join(this.upgradesDir, upgradeDirName(planName, this.cfg.disableRecase));
  }
  upgradeBin(planName: string): string {
    return join(this.upgradeDir(planName), "bin", this.cfg.name);
  }

  /** A fresh path under `.tmp/` (the directory is created). */
  async tmpPath(prefix: string): Promise<string> {
    await mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
    return join(this.tmpDir, `${prefix}-${random()}`);
  }

  /** Removes what a previous run left in `.tmp/` (interrupted downloads, backups, links). */
  async cleanTmp(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.tmpDir);
    } catch {
      return [];
    }
    for (const n of names) await rm(join(this.tmpDir, n), { recursive: true, force: true });
    return names;
  }

  /**
   * The directory `current` points to and the binary to run. Missing → `current → genesis` is created (the
   * genesis binary must exist); not a link → `symlink genesis current: file exists`; dangling → an error
   * naming the missing target.
   */
  async resolveCurrent(): Promise<{ dir: string; bin: string; target: string }> {
    const link = this.currentLink;
    let st;
    try {
      st = await lstat(link);
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw pathError("lstat", link, e);
      try {
        await stat(this.genesisBin);
      } catch (err) {
        throw new VisorError(`cannot create the current link: the genesis binary is missing: ${pathError("stat", this.genesisBin, err).message}`);
      }
      try {
        await symlink("genesis", link);
      } catch (err) {
        if ((err as { code?: string }).code === "EEXIST") throw new VisorError("symlink genesis current: file exists");
        throw pathError("symlink genesis", link, err);
      }
      return { dir: this.genesisDir, bin: this.genesisBin, target: "genesis" };
    }
    if (!st.isSymbolicLink()) throw new VisorError("symlink genesis current: file exists");
    const target = await readlink(link);
    const dir = resolve(this.root, target);
    try {
      if (!(await stat(dir)).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    } catch (e) {
      throw new VisorError(`the current link points to ${JSON.stringify(target)}, which is missing: ${pathError("stat", dir, e).message}`);
    }
    return { dir, bin: join(dir, "bin", this.cfg.name), target };
  }

  /** The name in `current/upgrade-info.json`; "" for genesis or when there is none. */
  async currentName(): Promise<string> {
    let dir: string;
    try {
      dir = resolve(this.root, await readlink(this.currentLink));
    } catch {
      return "";
    }
    return readCurrentName(join(dir, "upgrade-info.json"));
  }

  /**
   * Points `current` at `upgrades/<dir>` atomically: a relative link made in `.tmp/`, renamed over
   * `current`. The upgrade's binary must be in place. `beforeRename` is a fault-injection hook for tests.
   */
  async switchTo(planName: string, hooks: { beforeRename?: (tempLink: string) => Promise<void> | void } = {}): Promise<void> {
    await this.pointCurrentAt(join("upgrades", upgradeDirName(planName, this.cfg.disableRecase)), hooks);
  }

  /** Points `current` at `target` (`genesis`, `upgrades/<dir>`, relative to the root) atomically; its binary must be in place. */
  async pointCurrentAt(target: string, hooks: { beforeRename?: (tempLink: string) => Promise<void> | void } = {}): Promise<void> {
    await ensureBinary(join(this.root, target, "bin", this.cfg.name));
    const temp = await this.tmpPath("current");
    await symlink(target, temp);
    try {
      await hooks.beforeRename?.(temp);
    } catch (e) {
      await unlink(temp).catch(() => {});
      throw e;
    }
    try {
      await rename(temp, this.currentLink);
    } catch (e) {
      await unlink(temp).catch(() => {});
      throw pathError(`rename ${temp}`, this.currentLink, e);
    }
  }
}
