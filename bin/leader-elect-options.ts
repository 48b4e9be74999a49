import { Option, type Command } from 'commander';
import { formatGoDuration } from '../shared/go-duration.js';
import { defaultTiming, type Timing } from '../shared/timing.js';
import { electionTimingError } from '../cloud/leaderelection/config.js';
import { duration, goBool } from './options.js';

type ElectionFlags = Pick<Timing, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>;

/** kube-scheduler's and kube-controller-manager's leader election flags, with their defaults and help. */
export function leaderElectionOptions(command: Command): Command {
  const only = 'Only applicable if leader election is enabled; divided by --time-scale.';
  return command
    .addOption(new Option('--leader-elect [bool]', 'Start a leader election client and gain leadership before running the scheduler, the controller-manager and the hub. Enable this when running several clouds on one store for high availability.').argParser(goBool).default(true))
    .addOption(new Option('--leader-elect-lease-duration <duration>', `The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot. ${only}`).argParser(duration).default(defaultTiming.leaseDurationMs, formatGoDuration(defaultTiming.leaseDurationMs)))
    .addOption(new Option('--leader-elect-renew-deadline <duration>', `The interval between attempts by the acting leader to renew a leadership slot before it stops leading. This must be less than the lease duration. ${only}`).argParser(duration).default(defaultTiming.renewDeadlineMs, formatGoDuration(defaultTiming.renewDeadlineMs)))
    .addOption(new Option('--leader-elect-retry-period <duration>', `The duration the clients should wait between attempting acquisition and renewal of a leadership. ${only}`).argParser(duration).default(defaultTiming.retryPeriodMs, formatGoDuration(defaultTiming.retryPeriodMs)));
}

/** The flags' timing (unscaled), or exit 1 in client-go's words when they cannot elect. */
export function leaderElectionTiming(o: Record<string, unknown>, command: Command): ElectionFlags {
  const timing: ElectionFlags = { leaseDurationMs: o.leaderElectLeaseDuration as number, renewDeadlineMs: o.leaderElectRenewDeadline as number, retryPeriodMs: o.leaderElectRetryPeriod as number };
  const problem = o.leaderElect === false ? undefined : electionTimingError(timing);
  if (problem) {
    const given = `--leader-elect-lease-duration=${formatGoDuration(timing.leaseDurationMs)} --leader-elect-renew-deadline=${formatGoDuration(timing.renewDeadlineMs)} --leader-elect-retry-period=${formatGoDuration(timing.retryPeriodMs)}`;
    command.error(`error: invalid leader election timing: ${problem} (${given})`, { code: 'kedge.invalidLeaderElection' });
  }
  return timing;
}
