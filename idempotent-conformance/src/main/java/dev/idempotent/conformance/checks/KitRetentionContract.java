package dev.idempotent.conformance.checks;

import javax.sql.DataSource;

import dev.idempotent.conformance.KitTarget;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.retention.AbstractRetentionJobContractTest;

/**
 * idempotent-core's retention contract on the kit's database and tables: only old SUCCEEDED rows are archived, in
 * bounded batches, whatever the time zones; rows locked elsewhere are skipped, not waited for; jobs running at once
 * and claims racing the job neither lose nor repeat a key.
 */
public class KitRetentionContract extends AbstractRetentionJobContractTest {

	@Override
	protected DataSource dataSource() {
		return KitTarget.current().dataSource();
	}

	@Override
	protected SqlDialect dialect(DataSource dataSource) {
		return KitTarget.current().dialect();
	}

	@Override
	protected TableName createClaimTable(DataSource dataSource, SqlDialect dialect) {
		return KitTarget.current().tables().createClaimTable(dialect);
	}

	@Override
	protected void dropTable(String name) {
		KitTarget.current().tables().drop(name);
	}

}
