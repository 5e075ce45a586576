/**
 * The pause/resume gate of a run: the `pause` and `resume` signals flip it, and a run blocks at its
 * checkpoints while it is closed (no new model call, tool call or member starts; running ones
 * finish). A pause holds across continue-as-new (the run shell carries it).
 */
import { condition, setHandler } from '@temporalio/workflow';
import { pauseSignal, resumeSignal } from '../../shared/definitions';

export class PauseGate {
  /** Closed while true: the run waits at its next checkpoint. */
  paused: boolean;

  /** `paused`: carried by the previous run of a continue-as-new (a pause that still holds). */
  constructor(paused: boolean) {
    this.paused = paused;
  }

  /** Register the `pause` and `resume` handlers; `changed` runs after each (the run publishes its state). */
  register(changed: () => void): void {
    setHandler(pauseSignal, () => {
      this.paused = true;
      changed();
    });
    setHandler(resumeSignal, () => {
      this.paused = false;
      changed();
    });
  }

  /** Block while paused. */
  async checkpoint(): Promise<void> {
    if (this.paused) await condition(() => !this.paused);
  }
}
