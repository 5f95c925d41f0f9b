import { wordSet } from "./word-set.js";

/**
 * The words the concepts are read in (docs/profiles.md, "Suggested profiles"): generic synonyms in English, the words
 * that take a field away from a concept, and the words around a field that say whose it is. Never a vendor's field
 * names: `tcpa`, `zip`, `cell` are words any form may use.
 */

/** Someone other than the lead: the business, its staff, the vendor (their e-mail is not the lead's). */
export const NOT_THE_PERSON = wordSet(`
  agent agents rep reps representative company business businesses vendor partner provider providers organizer
  organiser organizers host hosts pro contractor technician tech employee staff advertiser affiliate referrer referral
  sales seller merchant dealer installer assigned assignee estimator office manager admin membership memberships
  guests doctor physician practitioner support team operator dispatcher sender emergency tracking forwarding
  organization organisation org firm employer brand store shop account accounts campaign variables variable metadata
  meta utm calculated settings definition config
`);

/** The people a lead is: being inside one of these supports a person's field. */
export const THE_PERSON = wordSet(`
  customer customers client clients contact contacts lead leads homeowner consumer requester patient guest person
  applicant caller invitee attendee attendees buyer prospect respondent submitter user visitor borrower tenant
  subscriber shopper student your you my me personal primary
`);

export const EMAIL_BLOCKERS = wordSet(
  "opt optin consent subscribe subscribed newsletter verified valid type domain bounce status marketing",
);
export const PHONE_WORDS = wordSet("phone phones telephone tel mobile cell cellphone cellular mob whatsapp msisdn");
export const PHONE_BLOCKERS = wordSet(
  "fax ext extension country code type verified valid opt optin consent carrier status tracking forwarding did",
);
export const NAME_BLOCKERS = wordSet(`
  first last given family sur surname middle maiden nick user username company business organization organisation org
  firm employer file form product service event campaign ad adset adgroup page category task job project street city
  state country region field question column key label type title plan list group team account site store location
  brand model make pet domain host app device browser package source vendor partner agent rep contractor pro provider
  staff employee assignee organizer calendar template tag status dealer installer estimator doctor physician
  technician tech sales seller merchant advertiser affiliate referrer
`);
export const PERSON_WORDS = wordSet(`
  customer client contact lead homeowner consumer requester patient guest person applicant caller invitee attendee
  buyer prospect respondent submitter visitor borrower tenant subscriber shopper
`);
/** Things that have names of their own, which are not people's. */
export const THING_WORDS = wordSet(`
  form forms category categories service services product products event events campaign campaigns page pages ad ads
  adset adgroup task tasks job project plan file calendar template tag status type item items option options question
  questions field fields column columns group team list source location site store brand model package
  app device browser venue room resource course class label labels tags addon addons color colors statuses
`);
export const FIRST_WORDS = wordSet("first given fore forename fname firstname");
export const LAST_WORDS = wordSet("last family sur surname lname lastname");
export const SEQUENCE_BLOCKERS = wordSet(`
  time date seen visit at login payment call order purchase response touch interaction contact message modified updated
  activity event 4 four digits sync reply active update change
`);
export const STREET_BLOCKERS = wordSet(
  "email mail ip web url website mac 2 two city state zip postal country hash wallet",
);
export const PLACE_WORDS = wordSet("location property premises site residence home");
export const MEETING_WORDS = wordSet("event events meeting meetings venue conference video organizer host");
export const LINE2_WORDS = wordSet("apt apartment suite unit");
export const CITY_WORDS = wordSet("city town locality municipality");
export const REGION_WORDS = wordSet("state province region");
export const ZIP_WORDS = wordSet("zip zipcode postal postcode");
export const CONSENT_CHANNEL = wordSet("sms text texts texting txt tcpa messages messaging");
export const CONSENT_WORDS = wordSet(
  "consent consents opt optin opted agree agreed accept accepted permission ok allow allowed reminders",
);
export const CONSENT_BLOCKERS = wordSet("email newsletter terms privacy policy tos gdpr cookie cookies");
/** Times that are not the visit: when the record was made, changed, sent, or an old slot. */
export const TIME_BLOCKERS = wordSet(`
  created create creation updated update modified submitted submit received sent processed deleted cancelled canceled
  cancel expires expiry expiration expire birth dob born last landed occurred paid reminder notified booked
  rescheduled reschedule previous old original timestamp requested inserted logged viewed opened delivered
`);
export const START_WORDS = wordSet("start starts starting begin begins beginning");
export const END_WORDS = wordSet("end ends ending finish finishes until to");
export const VISIT_WORDS = wordSet(`
  appointment appointments booking bookings visit slot slots reservation schedule scheduled meeting event session
  consultation inspection estimate job service preferred requested window
`);
export const DURATION_WORDS = wordSet("duration length minutes mins min");
export const ZONE_WORDS = wordSet("timezone tz tzid zone iana");
export const NOTES_WORDS = wordSet("notes note comments comment instructions remarks memo message");
export const NOTES_BLOCKERS = wordSet(
  "internal html private staff admin agent rep cancellation cancel reschedule rescheduling meeting",
);
export const ID_WORDS = wordSet("id uid uuid guid oid ref reference number no code key");
export const RECORD_WORDS = wordSet(`
  booking appointment appt reservation visit job lead request submission entry response ticket order confirmation
  call
`);
/** Envelopes around a vendor's record: an `id` inside one of these is the record's. */
export const ENVELOPE_WORDS = wordSet("payload data body object record result resource detail details attributes");
export const ID_BLOCKERS = wordSet(`
  form account company business campaign ad adset adgroup page user organizer calendar type question field template
  location site partner vendor source tracking utm session customer contact client service category version api
  webhook affiliate sub crm external gcl click parent team org owner membership member staff agent rep employee
  assignee provider doctor technician tech event conversation thread creative pixel device ip zip postal phone
  email tracking transaction payment invoice product item price plan
`);

/** A slot inside one of these is the booking's old one (a reschedule's), not the visit. */
export const FORMER_WORDS = wordSet("previous old original former rescheduled reschedule prior");
