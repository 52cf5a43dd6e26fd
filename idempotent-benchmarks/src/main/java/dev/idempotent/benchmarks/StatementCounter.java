package dev.idempotent.benchmarks;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Counts what the variant under test sends to the database: statements executed (a JDBC batch counts once: the
 * driver sends it as one multi-row statement with {@code rewriteBatchedStatements=true}) and commits. It wraps the
 * application's {@link DataSource} bean; the counts are reset when the measured records start flowing. Thread-safe.
 */
final class StatementCounter implements BeanPostProcessor {

	private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate", "executeBatch",
			"executeLargeUpdate", "executeLargeBatch");

	private final AtomicLong statements = new AtomicLong();

	private final AtomicLong commits = new AtomicLong();

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof DataSource dataSource && !(bean instanceof DelegatingDataSource)) {
			return new DelegatingDataSource(dataSource) {

				@Override
				public Connection getConnection() throws java.sql.SQLException {
					return counting(obtainTargetDataSource().getConnection());
				}

				@Override
				public Connection getConnection(String username, String password) throws java.sql.SQLException {
					return counting(obtainTargetDataSource().getConnection(username, password));
				}

			};
		}
		return bean;
	}

	/** Start counting from zero. */
	void reset() {
		this.statements.set(0);
		this.commits.set(0);
	}

	long statements() {
		return this.statements.get();
	}

	long commits() {
		return this.commits.get();
	}

	private Connection counting(Connection connection) {
		return proxy(Connection.class, connection, (method, result) -> {
			if (method.getName().equals("commit")) {
				this.commits.incrementAndGet();
			}
			if (result instanceof Statement statement && Statement.class.isAssignableFrom(method.getReturnType())) {
				return proxy(method.getReturnType(), statement, (statementMethod, ignored) -> {
					if (EXECUTIONS.contains(statementMethod.getName())) {
						this.statements.incrementAndGet();
					}
					return ignored;
				});
			}
			return result;
		});
	}

	private static <T> T proxy(Class<?> type, Object target, Counting counting) {
		InvocationHandler handler = (proxy, method, args) -> {
			try {
				Object result = method.invoke(target, args);
				return counting.after(method, result);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		};
		@SuppressWarnings("unchecked")
		T proxy = (T) Proxy.newProxyInstance(StatementCounter.class.getClassLoader(), new Class<?>[] { type }, handler);
		return proxy;
	}

	@FunctionalInterface
	private interface Counting {

		Object after(Method method, Object result);

	}

}
