package dev.idempotent.conformance.checks;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Map;

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
 * {@code hang-inside} (print {@value #INSIDE} with the transaction open, then wait forever), {@code restart} (claim
 * again and print {@code OUTCOME processed|hit}). The database is read from {@code IDEMPOTENT_KIT_URL},
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
		TableName claimTable = new TableName(args[1]);
		TableName businessTable = new TableName(args[2]);
		String key = args[3];
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(
				new JdbcClaimStore(dataSource, claimTable, dialect, Clock.systemUTC()),
				new DataSourceTransactionManager(dataSource), ClaimListener.NO_OP, 5);
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		PrintStream out = System.out;
		ClaimOutcome<String> outcome = executor.execute(new ClaimRequest("crash-check", key,
				new DeliverySource("orders", 0, 7)), () -> {
					jdbc.update("INSERT INTO " + businessTable + " (id, order_id) VALUES (?, ?)",
							java.util.UUID.randomUUID().toString(), key);
					if (mode.equals("hang-inside")) {
						signalAndWait(out, INSIDE);
					}
					return "booked";
				});
		if (mode.equals("hang-after-commit")) {
			signalAndWait(out, COMMITTED);
		}
		out.println(OUTCOME + ((outcome instanceof ClaimOutcome.Processed) ? "processed" : "hit"));
		out.flush();
	}

	/** Tell the parent where this process is, then wait for a kill -9 (the acknowledgment never comes). */
	private static void signalAndWait(PrintStream out, String signal) {
		out.println(signal);
		out.flush();
		try {
			System.in.read();
			Thread.sleep(Long.MAX_VALUE);
		}
		catch (IOException | InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
