package dev.idempotent.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotent.conformance.checks.CrashCheck;
import dev.idempotent.conformance.checks.CrossNodeChecks;
import dev.idempotent.conformance.checks.ErrorCodeChecks;
import dev.idempotent.conformance.checks.KitClaimStoreContract;
import dev.idempotent.conformance.checks.KitRetentionContract;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the check classes through the JUnit Platform Launcher, in order, and collects one {@link CheckResult} per
 * check. Not thread-safe: one run at a time.
 */
final class CheckRunner {

	/** The check classes, in the order the report lists them, with their group names. */
	static final Map<Class<?>, String> GROUPS = new java.util.LinkedHashMap<>();

	static {
		GROUPS.put(KitClaimStoreContract.class, "claim store");
		GROUPS.put(KitRetentionContract.class, "retention");
		GROUPS.put(ErrorCodeChecks.class, "error codes");
		GROUPS.put(CrashCheck.class, "crash");
		GROUPS.put(CrossNodeChecks.class, "cross-node");
	}

	/**
	 * The quick subset: the contract's checks that cover each property the guarantee rests on once (hits, re-claims,
	 * byte-exact keys, concurrent claims, a rolled-back holder, deadlocks, lock waits, both isolation levels, times,
	 * batches, retention), and every error-code and crash check.
	 */
	static final Set<String> QUICK = Set.of("detectsTheDialect", "firstDeliveryClaimsAndLaterOnesAreHits",
			"aFailedRowIsClaimedAgain", "keysCompareByteForByte", "concurrentClaimsOfOneKeyRunTheWorkOnce",
			"aHolderThatRollsBackLetsExactlyOneOfTheWaitingClaimsWin",
			"aDeadlockBetweenTwoClaimingTransactionsIsRetriedAndNeverAHit", "aLockWaitTimeoutIsRetriedAndNeverAHit",
			"aListenerTransactionThatAlreadyReadRowsStillRecognisesAHit", "timesAreStoredInUtcWhateverTheJvmAndSessionZones",
			"aBatchClaimsItsNewKeysOnceAndSkipsOldKeysAndRepeats", "aViolationOfABusinessUniqueConstraintIsAFailureNotAHit",
			"archivesOnlySucceededRowsOlderThanThePeriodWhateverTheTimeZones",
			"rowsLockedElsewhereAreSkippedNotWaitedForAndTakenByALaterRun");

	private CheckRunner() {
	}

	static List<CheckResult> run(KitOptions.CheckSet checks, boolean crossNode) {
		List<CheckResult> results = new ArrayList<>();
		for (Map.Entry<Class<?>, String> group : GROUPS.entrySet()) {
			if (group.getKey() == CrossNodeChecks.class && !crossNode) {
				continue;
			}
			LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
				.selectors(DiscoverySelectors.selectClass(group.getKey()))
				.configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false")
				.configurationParameter("junit.jupiter.testmethod.order.default",
						"org.junit.jupiter.api.MethodOrderer$MethodName");
			if (checks == KitOptions.CheckSet.QUICK && group.getKey() != ErrorCodeChecks.class
					&& group.getKey() != CrashCheck.class && group.getKey() != CrossNodeChecks.class) {
				request.filters(quickOnly());
			}
			Collector collector = new Collector(group.getValue());
			LauncherFactory.create().execute(request.build(), collector);
			results.addAll(collector.results);
		}
		return results;
	}

	private static PostDiscoveryFilter quickOnly() {
		return (descriptor) -> {
			Optional<TestSource> source = descriptor.getSource();
			if (source.isPresent() && source.get() instanceof MethodSource method) {
				return FilterResult.includedIf(QUICK.contains(method.getMethodName()));
			}
			return FilterResult.included("not a method");
		};
	}

	/** Turns JUnit's events into results. */
	private static final class Collector implements TestExecutionListener {

		final List<CheckResult> results = new ArrayList<>();

		private final String group;

		private final Map<String, Long> started = new ConcurrentHashMap<>();

		private final Map<String, List<String>> entries = new ConcurrentHashMap<>();

		Collector(String group) {
			this.group = group;
		}

		@Override
		public void executionStarted(TestIdentifier test) {
			this.started.put(test.getUniqueId(), System.nanoTime());
		}

		@Override
		public void reportingEntryPublished(TestIdentifier test, ReportEntry entry) {
			entry.getKeyValuePairs().forEach((key, value) -> this.entries
				.computeIfAbsent(test.getUniqueId(), (id) -> new ArrayList<>())
				.add(key + ": " + value));
		}

		@Override
		public void executionSkipped(TestIdentifier test, String reason) {
			if (test.isTest() || test.getSource().filter(ClassSource.class::isInstance).isPresent()) {
				this.results.add(new CheckResult(this.group, name(test), CheckResult.Status.SKIPPED, reason, 0));
			}
		}

		@Override
		public void executionFinished(TestIdentifier test, TestExecutionResult result) {
			boolean failedContainer = !test.isTest() && result.getStatus() == TestExecutionResult.Status.FAILED;
			if (!test.isTest() && !failedContainer) {
				return;
			}
			Long start = this.started.get(test.getUniqueId());
			long millis = (start != null) ? Duration.ofNanos(System.nanoTime() - start).toMillis() : 0;
			List<String> published = this.entries.getOrDefault(test.getUniqueId(), List.of());
			CheckResult.Status status = switch (result.getStatus()) {
				case SUCCESSFUL -> CheckResult.Status.PASS;
				case ABORTED -> CheckResult.Status.SKIPPED;
				case FAILED -> CheckResult.Status.FAIL;
			};
			String evidence = String.join("; ", published);
			if (result.getThrowable().isPresent() && status != CheckResult.Status.PASS) {
				String failure = Report.describe(result.getThrowable().get());
				evidence = evidence.isEmpty() ? failure : evidence + "; " + failure;
			}
			this.results.add(new CheckResult(this.group, name(test), status, evidence, millis));
		}

		private static String name(TestIdentifier test) {
			Optional<TestSource> source = test.getSource();
			if (source.isPresent() && source.get() instanceof MethodSource method) {
				String display = test.getDisplayName();
				return display.startsWith(method.getMethodName() + "(") ? method.getMethodName()
						: method.getMethodName() + " [" + display + "]";
			}
			return test.getDisplayName();
		}

	}

}
