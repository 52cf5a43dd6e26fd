package dev.idempotent.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The CPU time the parts of a run spend while it is measured, so that a variant's records/s can be traced to where
 * its time goes on a machine whose cores the consumers, the broker and the database share: the listener containers'
 * consumer threads (spring-kafka names them {@code <container>-C-<n>}), the JVM's other Java threads (the broker,
 * the producer, clients), the JVM's own threads (the whole JVM's time less its Java threads': garbage collection,
 * the JIT compilers), and the database server's processes ({@code mariadbd}, {@code mysqld}, {@code postgres}, read from
 * {@code /proc}, so only for a database on this machine; 0 where {@code /proc} is missing). Not thread-safe; one per
 * measured window.
 */
final class CpuMeter {

	private static final Set<String> DATABASE_PROCESSES = Set.of("mariadbd", "mysqld", "postgres");

	/** Clock ticks per second of {@code /proc/<pid>/stat} ({@code getconf CLK_TCK}, 100 on Linux). */
	private static final double TICKS_PER_SECOND = 100;

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	private final Map<Long, Long> consumerStart = new HashMap<>();

	private final Map<Long, Long> javaStart = new HashMap<>();

	private final long jvmStart;

	private final long databaseStart;

	/** Start measuring: the consumer threads that exist now are the ones measured. */
	CpuMeter() {
		for (ThreadInfo thread : this.threads.dumpAllThreads(false, false)) {
			if (thread == null) {
				continue;
			}
			long time = this.threads.getThreadCpuTime(thread.getThreadId());
			(thread.getThreadName().contains("-C-") ? this.consumerStart : this.javaStart).put(thread.getThreadId(), time);
		}
		this.jvmStart = ticks(Path.of("/proc/self/stat"));
		this.databaseStart = databaseTicks();
	}

	/**
	 * The CPU time spent since this meter started.
	 * @return the time of each part, in nanoseconds
	 */
	Usage stop() {
		long consumers = 0;
		long java = 0;
		for (ThreadInfo thread : this.threads.dumpAllThreads(false, false)) {
			if (thread == null) {
				continue;
			}
			long now = this.threads.getThreadCpuTime(thread.getThreadId());
			Long consumerStart = this.consumerStart.get(thread.getThreadId());
			if (now < 0) {
				continue;
			}
			if (consumerStart != null) {
				consumers += now - consumerStart;
			}
			else {
				// a thread started during the window counts whole; one that ended during it is not seen
				java += now - this.javaStart.getOrDefault(thread.getThreadId(), 0L);
			}
		}
		long jvm = nanos(ticks(Path.of("/proc/self/stat")) - this.jvmStart);
		return new Usage(consumers, java, Math.max(0, jvm - consumers - java), nanos(databaseTicks() - this.databaseStart));
	}

	private static long nanos(long ticks) {
		return (long) (ticks / TICKS_PER_SECOND * 1e9);
	}

	private static long databaseTicks() {
		try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
			return processes.filter((p) -> p.getFileName().toString().chars().allMatch(Character::isDigit))
				.filter((p) -> DATABASE_PROCESSES.contains(comm(p)))
				.mapToLong((p) -> ticks(p.resolve("stat")))
				.sum();
		}
		catch (IOException ex) {
			return 0;
		}
	}

	private static String comm(Path process) {
		try {
			return Files.readString(process.resolve("comm")).trim();
		}
		catch (IOException ex) {
			return "";
		}
	}

	/** utime + stime of a {@code /proc/<pid>/stat}, 0 if it cannot be read (the process ended). */
	private static long ticks(Path stat) {
		try {
			String text = Files.readString(stat);
			// the command name (field 2) is in parentheses and may hold spaces: count fields after its closing one
			String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
			return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
		}
		catch (IOException | RuntimeException ex) {
			return 0;
		}
	}

	/**
	 * CPU time over a measured window, in nanoseconds.
	 * @param consumers the listener containers' consumer threads
	 * @param otherJava the JVM's other Java threads
	 * @param jvmOwn the JVM's own threads (GC, JIT)
	 * @param database the database server's processes
	 */
	record Usage(long consumers, long otherJava, long jvmOwn, long database) {

		/** Microseconds per record of each part, as table cells, and their sum. */
		String perRecord(int records) {
			double per = 1e3 * records;
			return String.format(java.util.Locale.ROOT, "%.0f | %.0f | %.0f | %.0f | %.0f", this.consumers / per,
					this.otherJava / per, this.jvmOwn / per, this.database / per,
					(this.consumers + this.otherJava + this.jvmOwn + this.database) / per);
		}

	}

}
