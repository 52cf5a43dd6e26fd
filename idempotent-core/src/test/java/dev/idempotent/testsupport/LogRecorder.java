package dev.idempotent.testsupport;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/** Records the events of one logger while open. */
public final class LogRecorder implements AutoCloseable {

	private final Logger logger;

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private LogRecorder(String name) {
		this.logger = (Logger) LoggerFactory.getLogger(name);
		this.appender.start();
		this.logger.addAppender(this.appender);
	}

	/** Start recording the events of a logger. */
	public static LogRecorder of(String loggerName) {
		return new LogRecorder(loggerName);
	}

	/** Every event recorded so far, in order. */
	public List<ILoggingEvent> events() {
		return List.copyOf(this.appender.list);
	}

	/** The formatted messages recorded at a level. */
	public List<String> messages(Level level) {
		return this.appender.list.stream()
			.filter((event) -> event.getLevel() == level)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
	}

	@Override
	public void close() {
		this.logger.detachAppender(this.appender);
		this.appender.stop();
	}

}
