package dev.idempotent.benchmarks.scale;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Where the time of a retention run goes: a data source that adds up, per kind of statement (the SQL's first word
 * and the table it works on) and for commits, the wall time spent in the driver. Thread-safe.
 */
final class StatementTimes extends DelegatingDataSource {

	private final Map<String, LongAdder> nanos = new ConcurrentHashMap<>();

	private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

	StatementTimes(DataSource target) {
		super(target);
	}

	@Override
	public Connection getConnection() throws SQLException {
		Connection connection = obtainTargetDataSource().getConnection();
		return proxy(Connection.class, connection, (method, args, call) -> {
			if (method.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql) {
				PreparedStatement statement = (PreparedStatement) call.call();
				String kind = kind(sql);
				return proxy(PreparedStatement.class, statement,
						(statementMethod, statementArgs, statementCall) -> statementMethod.getName().startsWith("execute")
								? timed(kind, statementCall) : statementCall.call());
			}
			return method.getName().equals("commit") ? timed("COMMIT", call) : call.call();
		});
	}

	/** Milliseconds and executions per kind of statement, in name order. */
	String summary(int batches) {
		StringBuilder summary = new StringBuilder();
		new TreeMap<>(this.nanos).forEach((kind, total) -> summary.append(String.format("%s%s: %.2f ms per batch (%d)",
				summary.isEmpty() ? "" : "; ", kind, total.sum() / 1e6 / Math.max(1, batches), this.counts.get(kind).sum())));
		return summary.toString();
	}

	private Object timed(String kind, Call call) throws Throwable {
		long start = System.nanoTime();
		try {
			return call.call();
		}
		finally {
			this.nanos.computeIfAbsent(kind, (k) -> new LongAdder()).add(System.nanoTime() - start);
			this.counts.computeIfAbsent(kind, (k) -> new LongAdder()).increment();
		}
	}

	private static String kind(String sql) {
		String[] words = sql.trim().split("\\s+");
		String table = "";
		for (int i = 0; i < words.length - 1; i++) {
			if (words[i].equalsIgnoreCase("FROM") || words[i].equalsIgnoreCase("INTO")) {
				table = " " + words[i + 1];
				break;
			}
		}
		return words[0].toUpperCase() + table;
	}

	@SuppressWarnings("unchecked")
	private static <T> T proxy(Class<T> type, Object target, Handler handler) {
		InvocationHandler invocation = (proxy, method, args) -> handler.handle(method, args, () -> {
			try {
				return method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		});
		return (T) Proxy.newProxyInstance(StatementTimes.class.getClassLoader(), new Class<?>[] { type }, invocation);
	}

	@FunctionalInterface
	private interface Call {

		Object call() throws Throwable;

	}

	@FunctionalInterface
	private interface Handler {

		Object handle(java.lang.reflect.Method method, Object[] args, Call call) throws Throwable;

	}

}
