package dev.idempotent.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the sample, under {@code ledger.*}.
 */
@ConfigurationProperties("ledger")
public class LedgerProperties {

	/** Topic of order-paid events. */
	private String topic = "payments.order-paid";

	/** Topic of the ledger-credited events the listener publishes, one per credited order. */
	private String creditedTopic = "ledger.credited";

	/** Number of distinct order-paid events the demo publishes; 0 skips the demo. */
	private int events = 10_000;

	/** Share of events the demo publishes a second time, as a producer retry would. */
	private double resendRatio = 0.05;

	/**
	 * Whether the application keeps running (and consuming) after the demo instead of exiting; the "serve" profile
	 * sets it and also starts the web server with the actuator endpoints.
	 */
	private boolean keepRunning;

	/** How long the demo waits for each phase before it gives up. */
	private Duration phaseTimeout = Duration.ofMinutes(5);

	public String getTopic() {
		return this.topic;
	}

	public void setTopic(String topic) {
		this.topic = topic;
	}

	public String getCreditedTopic() {
		return this.creditedTopic;
	}

	public void setCreditedTopic(String creditedTopic) {
		this.creditedTopic = creditedTopic;
	}

	public int getEvents() {
		return this.events;
	}

	public void setEvents(int events) {
		this.events = events;
	}

	public double getResendRatio() {
		return this.resendRatio;
	}

	public void setResendRatio(double resendRatio) {
		this.resendRatio = resendRatio;
	}

	public boolean isKeepRunning() {
		return this.keepRunning;
	}

	public void setKeepRunning(boolean keepRunning) {
		this.keepRunning = keepRunning;
	}

	public Duration getPhaseTimeout() {
		return this.phaseTimeout;
	}

	public void setPhaseTimeout(Duration phaseTimeout) {
		this.phaseTimeout = phaseTimeout;
	}

}
