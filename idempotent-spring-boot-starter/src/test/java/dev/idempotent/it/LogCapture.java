package dev.idempotent.it;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/** Captures the events of one logger (and its children) while attached. */
final class LogCapture implements AutoCloseable {

	private final Logger logger;

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	LogCapture(String loggerName) {
		this.logger = (Logger) LoggerFactory.getLogger(loggerName);
		this.appender.start();
		this.logger.addAppender(this.appender);
	}

	List<ILoggingEvent> events() {
		synchronized (this.appender.list) {
			return List.copyOf(this.appender.list);
		}
	}

	List<String> messages(Level level) {
		return events().stream().filter((e) -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
	}

	@Override
	public void close() {
		this.logger.detachAppender(this.appender);
	}

}
