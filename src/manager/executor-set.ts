import { createExecutor } from '../executors/registry.js';
import { parseExecutorUrl } from '../executors/urls.js';
import { SandboxLauncher } from '../sandbox/launcher.js';
import type { SandboxBackend } from '../sandbox/policy.js';
import { LocalExecutor } from '../spawn/local-executor.js';
import type { Executor } from '../spawn/types.js';
import { invalidArgument } from './errors.js';

/** One executor as a manager knows it. */
export interface NamedExecutor {
  name: string;
  executor: Executor;
  /** Where it runs programs, as list_sessions says: `local`, `ws://10.0.0.2:8700`, `docker://web-1`. */
  location: string;
}

/** Whether an executor runs programs on this machine (it says `local`, or nothing). */
const onThisMachine = (executor: Executor) => (executor.location ?? 'local') === 'local';

/**
 * The executors one manager runs sessions on, by name, with a default (the first, unless named). Built from the
 * `executors` setting (name → URL or Executor; none given: `local`). An injected executor on this machine stands for `local`;
 * one elsewhere joins as `default`. Executors made here are closed with the manager; an injected one belongs to its
 * caller.
 */
export class ExecutorSet {
  private readonly byName = new Map<string, NamedExecutor>();
  private readonly owned: Executor[] = [];
  readonly defaultName: string;

  constructor(
    urls: Readonly<Record<string, string | Executor>>,
    defaultName: string | undefined,
    injected?: Executor,
    sandboxBackend?: SandboxBackend,
  ) {
    const local = () => new LocalExecutor({ sandbox: SandboxLauncher.shared(sandboxBackend) });
    // An injected executor on this machine stands for `local`; one elsewhere is called `default`.
    const injectedLocal = injected !== undefined && onThisMachine(injected);
    for (const [name, url] of Object.entries(urls)) {
      if (typeof url !== 'string') {
        this.add(name, url); // made by the caller, closed by the caller
        continue;
      }
      const parsed = parseExecutorUrl(url);
      if (parsed.kind === 'local' && injectedLocal) {
        this.add(name, injected);
        continue;
      }
      const made = parsed.kind === 'local' ? local() : createExecutor(parsed);
      this.owned.push(made);
      this.add(name, made);
    }
    if (injected && !injectedLocal) this.add('default', injected);
    if (this.byName.size === 0) {
      const made = injected ?? local();
      if (!injected) this.owned.push(made);
      this.add('local', made);
    }
    const chosen = defaultName ?? this.names[0]!;
    if (!this.byName.has(chosen)) {
      throw invalidArgument(
        `Invalid manager settings: defaultExecutor ${JSON.stringify(chosen)} is not one of the executors (${this.names.join(', ')})`,
      );
    }
    this.defaultName = chosen;
  }

  private add(name: string, executor: Executor): void {
    // Plain JavaScript, or an executor written for the earlier seam (spawn(argv, env, ...) instead of start).
    if (typeof (executor as Partial<Executor>).start !== 'function') {
      throw invalidArgument(
        `Invalid manager settings: executor \`${name}\` has no start(request): an Executor takes a command request and builds the process itself (see "The executor seam" in docs/design.md)`,
      );
    }
    this.byName.set(name, {
      name,
      executor,
      // Read each time: an executor may learn more of where it is (the container it made from an image).
      get location() {
        return executor.location ?? 'local';
      },
    });
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  /** The executor called `name` (absent: the default); an unknown name is an INVALID_ARGUMENT error. */
  get(name: string | undefined): NamedExecutor {
    const found = this.byName.get(name ?? this.defaultName);
    if (found) return found;
    throw invalidArgument(
      `Unknown executor ${JSON.stringify(name)}; this server runs commands on ${this.names.map((n) => `\`${n}\``).join(', ')} (leave \`executor\` out for \`${this.defaultName}\`)`,
    );
  }

  /** Closes the executors made here (connections, containers made for this manager). */
  async close(): Promise<void> {
    await Promise.allSettled(this.owned.map((executor) => executor.close?.()));
  }
}
