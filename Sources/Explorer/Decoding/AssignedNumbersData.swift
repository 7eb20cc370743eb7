/// The assigned-numbers table: every name bleexplr gives a UUID, unit, appearance or
/// company, in one place. Rows are `KEY NAME`; keys are hex (4 digits, or a full 128-bit
/// UUID for vendor services). Source: Bluetooth SIG Assigned Numbers (bitbucket.org/
/// bluetooth-SIG/public, assigned_numbers/*.yaml), plus the vendor UUIDs people meet
/// (Nordic UART and LED Button, the iTag, Apple's BTLE Transfer sample, ANCS/AMS).
/// Parsed once by `AssignedNumbers`; tests check names against UUIDs and that every
/// row parses with no duplicate key.
enum AssignedNumbersData {
    /// Services (16-bit SIG and well-known vendor 128-bit UUIDs).
    static let services = """
1000 Service Discovery Server Service Class
1001 Browse Group Descriptor Service Class
1101 Serial Port
1108 Headset
110A Audio Source
110B Audio Sink
110C A/V Remote Control Target
110E A/V Remote Control
111E Handsfree
111F Handsfree Audio Gateway
1124 Human Interface Device Service
1200 PnP Information
1800 Generic Access
1801 Generic Attribute
1802 Immediate Alert
1803 Link Loss
1804 Tx Power
1805 Current Time
1806 Reference Time Update
1807 Next DST Change
1808 Glucose
1809 Health Thermometer
180A Device Information
180D Heart Rate
180E Phone Alert Status
180F Battery
1810 Blood Pressure
1811 Alert Notification
1812 Human Interface Device
1813 Scan Parameters
1814 Running Speed and Cadence
1815 Automation IO
1816 Cycling Speed and Cadence
1818 Cycling Power
1819 Location and Navigation
181A Environmental Sensing
181B Body Composition
181C User Data
181D Weight Scale
181E Bond Management
181F Continuous Glucose Monitoring
1820 Internet Protocol Support
1821 Indoor Positioning
1822 Pulse Oximeter
1823 HTTP Proxy
1824 Transport Discovery
1825 Object Transfer
1826 Fitness Machine
1827 Mesh Provisioning
1828 Mesh Proxy
1829 Reconnection Configuration
183A Insulin Delivery
183B Binary Sensor
183C Emergency Configuration
183D Authorization Control
183E Physical Activity Monitor
183F Elapsed Time
1840 Generic Health Sensor
1843 Audio Input Control
1844 Volume Control
1845 Volume Offset Control
1846 Coordinated Set Identification
1847 Device Time
1848 Media Control
1849 Generic Media Control
184A Constant Tone Extension
184B Telephone Bearer
184C Generic Telephone Bearer
184D Microphone Control
184E Audio Stream Control
184F Broadcast Audio Scan
1850 Published Audio Capabilities
1851 Basic Audio Announcement
1852 Broadcast Audio Announcement
1853 Common Audio
1854 Hearing Access
1855 Telephony and Media Audio
1856 Public Broadcast Announcement
1857 Electronic Shelf Label
1858 Gaming Audio
1859 Mesh Proxy Solicitation
FD6F Exposure Notification
FE2C Google Fast Pair
FE59 Nordic Secure DFU
FCD2 BTHome
FE95 Xiaomi
FE9A Estimote
FE9F Google
FEAA Eddystone
FEED Tile
FFE0 iTag Button
6E400001-B5A3-F393-E0A9-E50E24DCCA9E Nordic UART
00001523-1212-EFDE-1523-785FEABCD123 Nordic LED Button
00001530-1212-EFDE-1523-785FEABCD123 Nordic Legacy DFU
E20A39F4-73F5-4BC4-A12F-17D1AD07A961 BTLE Transfer (Apple sample)
7905F431-B5CE-4E99-A40F-4B1E122D00D0 Apple Notification Center
89D3502B-0F36-433A-8EF4-C502AD55F8DC Apple Media
D0611E78-BBB4-4591-A5F8-487910AE4366 Apple Continuity
"""

    /// Characteristics.
    static let characteristics = """
2A00 Device Name
2A01 Appearance
2A02 Peripheral Privacy Flag
2A03 Reconnection Address
2A04 Peripheral Preferred Connection Parameters
2A05 Service Changed
2A06 Alert Level
2A07 Tx Power Level
2A08 Date Time
2A09 Day of Week
2A0A Day Date Time
2A0C Exact Time 256
2A0D DST Offset
2A0E Time Zone
2A0F Local Time Information
2A11 Time with DST
2A12 Time Accuracy
2A13 Time Source
2A14 Reference Time Information
2A16 Time Update Control Point
2A17 Time Update State
2A18 Glucose Measurement
2A19 Battery Level
2A1C Temperature Measurement
2A1D Temperature Type
2A1E Intermediate Temperature
2A21 Measurement Interval
2A22 Boot Keyboard Input Report
2A23 System ID
2A24 Model Number String
2A25 Serial Number String
2A26 Firmware Revision String
2A27 Hardware Revision String
2A28 Software Revision String
2A29 Manufacturer Name String
2A2A IEEE 11073-20601 Regulatory Certification Data List
2A2B Current Time
2A2C Magnetic Declination
2A31 Scan Refresh
2A32 Boot Keyboard Output Report
2A33 Boot Mouse Input Report
2A34 Glucose Measurement Context
2A35 Blood Pressure Measurement
2A36 Intermediate Cuff Pressure
2A37 Heart Rate Measurement
2A38 Body Sensor Location
2A39 Heart Rate Control Point
2A3F Alert Status
2A40 Ringer Control Point
2A41 Ringer Setting
2A42 Alert Category ID Bit Mask
2A43 Alert Category ID
2A44 Alert Notification Control Point
2A45 Unread Alert Status
2A46 New Alert
2A47 Supported New Alert Category
2A48 Supported Unread Alert Category
2A49 Blood Pressure Feature
2A4A HID Information
2A4B Report Map
2A4C HID Control Point
2A4D Report
2A4E Protocol Mode
2A4F Scan Interval Window
2A50 PnP ID
2A51 Glucose Feature
2A52 Record Access Control Point
2A53 RSC Measurement
2A54 RSC Feature
2A55 SC Control Point
2A5A Aggregate
2A5B CSC Measurement
2A5C CSC Feature
2A5D Sensor Location
2A5E PLX Spot-Check Measurement
2A5F PLX Continuous Measurement
2A60 PLX Features
2A63 Cycling Power Measurement
2A64 Cycling Power Vector
2A65 Cycling Power Feature
2A66 Cycling Power Control Point
2A67 Location and Speed
2A68 Navigation
2A6C Elevation
2A6D Pressure
2A6E Temperature
2A6F Humidity
2A70 True Wind Speed
2A71 True Wind Direction
2A72 Apparent Wind Speed
2A73 Apparent Wind Direction
2A74 Gust Factor
2A75 Pollen Concentration
2A76 UV Index
2A77 Irradiance
2A78 Rainfall
2A79 Wind Chill
2A7A Heat Index
2A7B Dew Point
2A7D Descriptor Value Changed
2A7E Aerobic Heart Rate Lower Limit
2A80 Age
2A85 Date of Birth
2A8A First Name
2A8C Gender
2A8E Height
2A90 Last Name
2A98 Weight
2A99 Database Change Increment
2A9A User Index
2A9B Body Composition Feature
2A9C Body Composition Measurement
2A9D Weight Measurement
2A9E Weight Scale Feature
2A9F User Control Point
2AA0 Magnetic Flux Density - 2D
2AA1 Magnetic Flux Density - 3D
2AA2 Language
2AA3 Barometric Pressure Trend
2AA6 Central Address Resolution
2AA7 CGM Measurement
2AA8 CGM Feature
2AA9 CGM Status
2AAA CGM Session Start Time
2AAB CGM Session Run Time
2AAC CGM Specific Ops Control Point
2AC9 Resolvable Private Address Only
2ACC Fitness Machine Feature
2ACD Treadmill Data
2AD2 Indoor Bike Data
2AD9 Fitness Machine Control Point
2ADA Fitness Machine Status
2ADB Mesh Provisioning Data In
2ADC Mesh Provisioning Data Out
2ADD Mesh Proxy Data In
2ADE Mesh Proxy Data Out
2B29 Client Supported Features
2B2A Database Hash
2B3A Server Supported Features
FFE1 iTag Button Press
6E400002-B5A3-F393-E0A9-E50E24DCCA9E Nordic UART RX
6E400003-B5A3-F393-E0A9-E50E24DCCA9E Nordic UART TX
00001524-1212-EFDE-1523-785FEABCD123 Nordic LED Button: Button
00001525-1212-EFDE-1523-785FEABCD123 Nordic LED Button: LED
08590F7E-DB05-467E-8757-72F6FAEB13D4 BTLE Transfer Data (Apple sample)
"""

    /// Descriptors.
    static let descriptors = """
2900 Characteristic Extended Properties
2901 Characteristic User Description
2902 Client Characteristic Configuration
2903 Server Characteristic Configuration
2904 Characteristic Presentation Format
2905 Characteristic Aggregate Format
2906 Valid Range
2907 External Report Reference
2908 Report Reference
2909 Number of Digitals
290A Value Trigger Setting
290B Environmental Sensing Configuration
290C Environmental Sensing Measurement
290D Environmental Sensing Trigger Setting
290E Time Trigger Setting
290F Complete BR-EDR Transport Block Data
2910 Observation Schedule
2911 Valid Range and Accuracy
"""

    /// Units (0x27xx) for Presentation Format descriptors: `name|symbol`.
    static let units = """
2700 unitless|
2701 metre|m
2702 kilogram|kg
2703 second|s
2704 ampere|A
2705 kelvin|K
2706 mole|mol
2707 candela|cd
2710 square metres|m²
2711 cubic metres|m³
2712 metres per second|m/s
2713 metres per second squared|m/s²
2714 reciprocal metre|1/m
2715 kilogram per cubic metre|kg/m³
2716 kilogram per square metre|kg/m²
2717 cubic metre per kilogram|m³/kg
2718 ampere per square metre|A/m²
2719 ampere per metre|A/m
271A mole per cubic metre|mol/m³
271B mass concentration: kilogram per cubic metre|kg/m³
271C candela per square metre|cd/m²
271D refractive index|
271E relative permeability|
2720 radian|rad
2721 steradian|sr
2722 hertz|Hz
2723 newton|N
2724 pascal|Pa
2725 joule|J
2726 watt|W
2727 coulomb|C
2728 volt|V
2729 farad|F
272A ohm|Ω
272B siemens|S
272C weber|Wb
272D tesla|T
272E henry|H
272F degree Celsius|°C
2730 lumen|lm
2731 lux|lx
2732 becquerel|Bq
2733 gray|Gy
2734 sievert|Sv
2735 katal|kat
2740 pascal second|Pa·s
2741 newton metre|N·m
2742 newton per metre|N/m
2743 radian per second|rad/s
2744 radian per second squared|rad/s²
2745 watt per square metre (heat flux density)|W/m²
2746 joule per kelvin|J/K
2747 joule per kilogram kelvin|J/(kg·K)
2748 joule per kilogram|J/kg
2749 watt per metre kelvin|W/(m·K)
274A joule per cubic metre|J/m³
274B volt per metre|V/m
274C coulomb per cubic metre|C/m³
274D coulomb per square metre (surface charge)|C/m²
274E coulomb per square metre (electric flux)|C/m²
274F farad per metre|F/m
2750 henry per metre|H/m
2751 joule per mole|J/mol
2752 joule per mole kelvin|J/(mol·K)
2753 coulomb per kilogram|C/kg
2754 gray per second|Gy/s
2755 watt per steradian|W/sr
2756 watt per square metre steradian|W/(m²·sr)
2757 katal per cubic metre|kat/m³
2760 minute|min
2761 hour|h
2762 day|d
2763 degree|°
2764 minute of arc|′
2765 second of arc|″
2766 hectare|ha
2767 litre|L
2768 tonne|t
2780 bar|bar
2781 millimetre of mercury|mmHg
2782 ångström|Å
2783 nautical mile|NM
2784 barn|b
2785 knot|kn
2786 neper|Np
2787 bel|B
27A0 yard|yd
27A1 parsec|pc
27A2 inch|in
27A3 foot|ft
27A4 mile|mi
27A5 pound-force per square inch|psi
27A6 kilometre per hour|km/h
27A7 mile per hour|mph
27A8 revolution per minute|rpm
27A9 gram calorie|cal
27AA kilogram calorie|kcal
27AB kilowatt hour|kWh
27AC degree Fahrenheit|°F
27AD percentage|%
27AE per mille|‰
27AF beats per minute|bpm
27B0 ampere hours|Ah
27B1 milligram per decilitre|mg/dL
27B2 millimole per litre|mmol/L
27B3 year|y
27B4 month|mo
27B5 count per cubic metre|/m³
27B6 watt per square metre (irradiance)|W/m²
27B7 millilitre per kilogram per minute|mL/(kg·min)
27B8 pound|lb
27B9 metabolic equivalent|MET
27BA step per minute|steps/min
27BC stroke per minute|strokes/min
27BD kilometre per minute|km/min
27BE lumen per watt|lm/W
27BF lumen hour|lm·h
27C0 lux hour|lx·h
27C1 gram per second|g/s
27C2 litre per second|L/s
27C3 decibel|dB
27C4 parts per million|ppm
27C5 parts per billion|ppb
27C6 milligram per decilitre per minute|mg/dL/min
27C7 kilovolt ampere hour|kVAh
27C8 volt ampere|VA
"""

    /// GAP Appearance values: category (value with the low 6 bits clear) and subcategory rows.
    static let appearances = """
0000 Unknown
0040 Phone
0080 Computer
0081 Desktop Workstation
0082 Server-class Computer
0083 Laptop
0084 Handheld PC/PDA
0085 Palm-size PC/PDA
0086 Wearable computer
0087 Tablet
0088 Docking Station
0089 All in One
008A Blade Server
008B Convertible
008C Detachable
008D IoT Gateway
008E Mini PC
008F Stick PC
00C0 Watch
00C1 Sports Watch
00C2 Smartwatch
0100 Clock
0140 Display
0180 Remote Control
01C0 Eye-glasses
0200 Tag
0240 Keyring
0280 Media Player
02C0 Barcode Scanner
0300 Thermometer
0301 Ear Thermometer
0340 Heart Rate Sensor
0341 Heart Rate Belt
0380 Blood Pressure
0381 Arm Blood Pressure
0382 Wrist Blood Pressure
03C0 Human Interface Device
03C1 Keyboard
03C2 Mouse
03C3 Joystick
03C4 Gamepad
03C5 Digitizer Tablet
03C6 Card Reader
03C7 Digital Pen
03C8 Barcode Scanner
03C9 Touchpad
03CA Presentation Remote
0400 Glucose Meter
0440 Running Walking Sensor
0441 In-Shoe Running Walking Sensor
0442 On-Shoe Running Walking Sensor
0443 On-Hip Running Walking Sensor
0480 Cycling
0481 Cycling Computer
0482 Speed Sensor
0483 Cadence Sensor
0484 Power Sensor
0485 Speed and Cadence Sensor
04C0 Control Device
0500 Network Device
0540 Sensor
0580 Light Fixtures
05C0 Fan
0600 HVAC
0640 Air Conditioning
0680 Humidifier
06C0 Heating
0700 Access Control
0740 Motorized Device
0780 Power Device
07C0 Light Source
0800 Window Covering
0840 Audio Sink
0841 Standalone Speaker
0842 Soundbar
0843 Bookshelf Speaker
0844 Standmounted Speaker
0845 Speakerphone
0880 Audio Source
0881 Microphone
0882 Alarm
0883 Bell
0884 Horn
0885 Broadcasting Device
0886 Service Desk
0887 Kiosk
0888 Broadcasting Room
0889 Auditorium
08C0 Motorized Vehicle
0900 Domestic Appliance
0940 Wearable Audio Device
0941 Earbud
0942 Headset
0943 Headphones
0944 Neck Band
0980 Aircraft
09C0 AV Equipment
0A00 Display Equipment
0A40 Hearing aid
0A41 In-ear hearing aid
0A42 Behind-ear hearing aid
0A43 Cochlear Implant
0A80 Gaming
0A81 Home Video Game Console
0A82 Portable handheld console
0AC0 Signage
0C40 Pulse Oximeter
0C41 Fingertip Pulse Oximeter
0C42 Wrist Worn Pulse Oximeter
0C80 Weight Scale
0CC0 Personal Mobility Device
0CC1 Powered Wheelchair
0CC2 Mobility Scooter
0D00 Continuous Glucose Monitor
0D40 Insulin Pump
0D41 Insulin Pump, durable pump
0D44 Insulin Pump, patch pump
0D48 Insulin Pen
0D80 Medication Delivery
0DC0 Spirometer
0DC1 Handheld Spirometer
1440 Outdoor Sports Activity
1441 Location Display
1442 Location and Navigation Display
1443 Location Pod
1444 Location and Navigation Pod
"""

}
