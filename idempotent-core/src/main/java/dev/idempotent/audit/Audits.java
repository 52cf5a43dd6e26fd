package dev.idempotent.audit;

import java.util.Optional;
import java.util.Set;

/**
 * The reconciliation audits an application declared, by name: each one looks for business keys written more than
 * once. Implementations are thread-safe.
 *
 * @since 0.1.0
 */
public interface Audits {

	/**
	 * Return the names of the declared audits.
	 * @return the names, never {@code null}
	 */
	Set<String> names();

	/**
	 * Run an audit now, on the calling thread, and record its result as the latest one.
	 * @param name the audit's name, never {@code null}
	 * @return the result, never {@code null}
	 * @throws IllegalArgumentException if no audit has that name
	 * @throws org.springframework.dao.DataAccessException if the audit's query fails
	 */
	AuditResult run(String name);

	/**
	 * Return the result of the latest run of an audit.
	 * @param name the audit's name, never {@code null}
	 * @return the latest result, empty if it has not run yet
	 * @throws IllegalArgumentException if no audit has that name
	 */
	Optional<AuditResult> lastResult(String name);

}
