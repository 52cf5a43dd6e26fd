package dev.idempotent.conformance.checks;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.metrics.ClaimListener;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The consumer process of the {@link CrashCheck}: claims one key as a listener would, writing one business row in
 * the claim's transaction, and then either stops before acknowledging (is killed there) or reports the outcome.
 * <p>Arguments: {@code mode claimTable businessTable key}; modes: {@code hang-after-commit} (print
 * {@value #COMMITTED} once the transaction committed, then wait forever instead of acknowledging),
 * {@code hang-inside} (print {@value #INSIDE} with the transaction open, then wait forever); a process that is not
 * killed prints {@code OUTCOME processed|hit}. The database is read from {@code IDEMPOTENT_KIT_URL},
 * {@code _USER}, {@code _PASSWORD} and {@code _DIALECT}.
 */
public final class CrashChild {

	static final String COMMITTED = "COMMITTED";

	static final String INSIDE = "INSIDE";

	static final String OUTCOME = "OUTCOME ";

	private CrashChild() {
	}

	/**
	 * Run the child.
	 * @param args mode, claim table, business table, key
	 * @throws Throwable whatever the claim throws
	 */
	public static void main(String[] args) throws Throwable {
		Map<String, String> env = System.getenv();
		DataSource dataSource = new DriverManagerDataSource(env.get("IDEMPOTENT_KIT_URL"), env.get("IDEMPOTENT_KIT_USER"),
				env.getOrDefault("IDEMPOTENT_KIT_PASSWORD", ""));
		SqlDialect dialect = SqlDialect.fromId(env.get("IDEMPOTENT_KIT_DIALECT"));
		String mode = args[0];
		PrintStream out = System.out;
		ClaimOutcome<String> outcome = claim(dataSource, dialect, new TableName(args[1]), new TableName(args[2]), args[3],
				mode.equals("hang-inside") ? () -> signalAndWait(out, INSIDE) : () -> {
				});
		if (mode.equals("hang-after-commit")) {
			signalAndWait(out, COMMITTED);
		}
		out.println(OUTCOME + describe(outcome));
		out.flush();
	}

	/**
	 * Claim a key as a listener would: in one transaction, the claim and one business row; {@code inside} runs
	 * after the business write, before the commit.
	 */
	static ClaimOutcome<String> claim(DataSource dataSource, SqlDialect dialect, TableName claimTable,
			TableName businessTable, String key, Runnable inside) throws Throwable {
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(
				new JdbcClaimStore(dataSource, claimTable, dialect, Clock.systemUTC()),
				new DataSourceTransactionManager(dataSource), ClaimListener.NO_OP, 5);
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		return executor.execute(new ClaimRequest("crash-check", key, new DeliverySource("orders", 0, 7)), () -> {
			jdbc.update("INSERT INTO " + businessTable + " (id, order_id) VALUES (?, ?)", UUID.randomUUID().toString(),
					key);
			inside.run();
			return "booked";
		});
	}

	static String describe(ClaimOutcome<String> outcome) {
		return (outcome instanceof ClaimOutcome.Processed) ? "processed" : "hit";
	}

	/**
	 * Tell the parent where this process is, then wait for its kill -9 (the acknowledgment never comes). Should the
	 * parent go away instead, its end of standard input closes and this process exits rather than linger.
	 */
	private static void signalAndWait(PrintStream out, String signal) {
		out.println(signal);
		out.flush();
		try {
			while (System.in.read() >= 0) {
				// the parent writes nothing: wait for the kill or for the end of input
			}
		}
		catch (IOException ex) {
			// the parent is gone
		}
		System.exit(3);
	}

}
