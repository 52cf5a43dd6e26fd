package dev.idempotent.it;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A data source whose {@code commit()} fails, as when the connection drops during the commit, for transactions
 * a listener armed while failing is switched on. The real commit is not called, so nothing is committed.
 */
final class CommitFaults extends DelegatingDataSource {

	static final AtomicBoolean failing = new AtomicBoolean();

	static final AtomicInteger failedCommits = new AtomicInteger();

	private static final ThreadLocal<Boolean> armed = new ThreadLocal<>();

	CommitFaults(DataSource target) {
		super(target);
	}

	/** Make the commit of the current thread's transaction fail, if failing is on. */
	static void armIfFailing() {
		if (failing.get()) {
			armed.set(Boolean.TRUE);
		}
	}

	@Override
	public Connection getConnection() throws SQLException {
		Connection connection = super.getConnection();
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				(proxy, method, args) -> {
					if (method.getName().equals("commit") && Boolean.TRUE.equals(armed.get())) {
						armed.remove();
						failedCommits.incrementAndGet();
						throw new SQLRecoverableException("connection reset during commit", "08S01");
					}
					try {
						return method.invoke(connection, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

}
