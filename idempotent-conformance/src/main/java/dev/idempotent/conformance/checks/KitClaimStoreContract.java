package dev.idempotent.conformance.checks;

import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.conformance.KitTarget;
import dev.idempotent.jdbc.AbstractClaimStoreContractTest;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.key.KeyValidator;
import dev.idempotent.testsupport.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * idempotent-core's claim-store contract, as the library's own suite runs it per database, on the kit's database and
 * tables: hits, re-claims, byte-exact keys, concurrent claims of one key, a rolled-back holder with waiters, deadlock
 * and lock-wait classification, other constraints, READ COMMITTED and REPEATABLE READ, batches, leases, times.
 */
public class KitClaimStoreContract extends AbstractClaimStoreContractTest {

	@Override
	protected DataSource dataSource() {
		return KitTarget.current().dataSource();
	}

	@Override
	protected SqlDialect expectedDialect() {
		return KitTarget.current().dialect();
	}

	@Override
	protected String lockTimeoutSql() {
		return KitTarget.lockTimeoutSql(expectedDialect());
	}

	@Override
	protected TestDatabases.Connection connection() {
		return KitTarget.current().connection();
	}

	@Override
	protected void awaitLockWaits(JdbcTemplate jdbc, List<Thread> waiters) {
		LockWaits.await(expectedDialect(), jdbc, waiters);
	}

	@Override
	protected int keyColumnSize() {
		return (expectedDialect() == SqlDialect.H2) ? 256 : KeyValidator.DEFAULT_MAX_LENGTH;
	}

	@Override
	protected TableName createClaimTable(DataSource dataSource, SqlDialect dialect) {
		return KitTarget.current().tables().createClaimTable(dialect);
	}

	@Override
	protected String businessTableName(TableName claimTable) {
		return claimTable.value() + "_biz";
	}

	@Override
	protected void dropTable(String name) {
		KitTarget.current().tables().drop(name);
	}

}
