import { onUnexpectedError } from './unexpected-error';

/** Something that holds a resource (a timer, a watcher, a subscription, a server). */
export interface Disposable {
  dispose(): void | Promise<void>;
}

/**
 * A disposable, or a function that releases the resource (an Unsubscribe, a close); a
 * promise it returns is awaited.
 */
export type DisposableLike = Disposable | (() => unknown);

/**
 * Owns resources and releases them together. `dispose()` releases each once, newest first
 * (what was added last may depend on what was added before it), waiting for each before
 * the next; one that throws or rejects does not stop the others, and dispose() rejects
 * afterwards with that error (an AggregateError for several). Calling dispose() again
 * returns the same promise. A resource added after dispose() is released at once; its
 * failure goes to onUnexpectedError since nobody awaits it.
 */
export class DisposableStore implements Disposable {
  private readonly items: DisposableLike[] = [];
  private disposing: Promise<void> | undefined;

  get isDisposed(): boolean {
    return this.disposing !== undefined;
  }

  /** Takes ownership of `item` and returns it. */
  add<D extends DisposableLike>(item: D): D {
    if (this.disposing) {
      releaseOne(item).then(undefined, (e: unknown) => onUnexpectedError(e, 'a disposable added after dispose'));
    } else {
      this.items.push(item);
    }
    return item;
  }

  dispose(): Promise<void> {
    this.disposing ??= this.releaseAll();
    return this.disposing;
  }

  private async releaseAll(): Promise<void> {
    const errors: unknown[] = [];
    for (const item of this.items.splice(0).reverse()) {
      try {
        await releaseOne(item);
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} resources failed to release`);
  }
}

async function releaseOne(item: DisposableLike): Promise<void> {
  await (typeof item === 'function' ? item() : item.dispose());
}
