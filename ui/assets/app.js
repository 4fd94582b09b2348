// Built by scripts/build-ui.mjs from ui/src and src/client. Do not edit.
var Ge=globalThis,gt=n=>n,Ee=Ge.trustedTypes,ft=Ee?Ee.createPolicy("lit-html",{createHTML:n=>n}):void 0,Ke="$lit$",U=`lit$${Math.random().toFixed(9).slice(2)}$`,ze="?"+U,Tn=`<${ze}>`,Z=document,pe=()=>Z.createComment(""),he=n=>n===null||typeof n!="object"&&typeof n!="function",Ye=Array.isArray,kt=n=>Ye(n)||typeof n?.[Symbol.iterator]=="function",Be=`[ 	
\f\r]`,ue=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,yt=/-->/g,vt=/>/g,Q=RegExp(`>|${Be}(?:([^\\s"'>=/]+)(${Be}*=${Be}*(?:[^ 	
\f\r"'\`<>=]|("|')|))|$)`,"g"),$t=/'/g,bt=/"/g,_t=/^(?:script|style|textarea|title)$/i,Je=n=>(e,...t)=>({_$litType$:n,strings:e,values:t}),c=Je(1),ge=Je(2),Zn=Je(3),ee=Symbol.for("lit-noChange"),y=Symbol.for("lit-nothing"),wt=new WeakMap,X=Z.createTreeWalker(Z,129);function xt(n,e){if(!Ye(n)||!n.hasOwnProperty("raw"))throw Error("invalid template strings array");return ft!==void 0?ft.createHTML(e):e}var St=(n,e)=>{let t=n.length-1,i=[],r,o=e===2?"<svg>":e===3?"<math>":"",l=ue;for(let f=0;f<t;f++){let p=n[f],g,d,h=-1,v=0;for(;v<p.length&&(l.lastIndex=v,d=l.exec(p),d!==null);)v=l.lastIndex,l===ue?d[1]==="!--"?l=yt:d[1]!==void 0?l=vt:d[2]!==void 0?(_t.test(d[2])&&(r=RegExp("</"+d[2],"g")),l=Q):d[3]!==void 0&&(l=Q):l===Q?d[0]===">"?(l=r??ue,h=-1):d[1]===void 0?h=-2:(h=l.lastIndex-d[2].length,g=d[1],l=d[3]===void 0?Q:d[3]==='"'?bt:$t):l===bt||l===$t?l=Q:l===yt||l===vt?l=ue:(l=Q,r=void 0);let b=l===Q&&n[f+1].startsWith("/>")?" ":"";o+=l===ue?p+Tn:h>=0?(i.push(g),p.slice(0,h)+Ke+p.slice(h)+U+b):p+U+(h===-2?f:b)}return[xt(n,o+(n[t]||"<?>")+(e===2?"</svg>":e===3?"</math>":"")),i]},me=class n{constructor({strings:e,_$litType$:t},i){let r;this.parts=[];let o=0,l=0,f=e.length-1,p=this.parts,[g,d]=St(e,t);if(this.el=n.createElement(g,i),X.currentNode=this.el.content,t===2||t===3){let h=this.el.content.firstChild;h.replaceWith(...h.childNodes)}for(;(r=X.nextNode())!==null&&p.length<f;){if(r.nodeType===1){if(r.hasAttributes())for(let h of r.getAttributeNames())if(h.endsWith(Ke)){let v=d[l++],b=r.getAttribute(h).split(U),w=/([.?@])?(.*)/.exec(v);p.push({type:1,index:o,name:w[2],strings:b,ctor:w[1]==="."?Re:w[1]==="?"?Ie:w[1]==="@"?qe:ne}),r.removeAttribute(h)}else h.startsWith(U)&&(p.push({type:6,index:o}),r.removeAttribute(h));if(_t.test(r.tagName)){let h=r.textContent.split(U),v=h.length-1;if(v>0){r.textContent=Ee?Ee.emptyScript:"";for(let b=0;b<v;b++)r.append(h[b],pe()),X.nextNode(),p.push({type:2,index:++o});r.append(h[v],pe())}}}else if(r.nodeType===8)if(r.data===ze)p.push({type:2,index:o});else{let h=-1;for(;(h=r.data.indexOf(U,h+1))!==-1;)p.push({type:7,index:o}),h+=U.length-1}o++}}static createElement(e,t){let i=Z.createElement("template");return i.innerHTML=e,i}};function te(n,e,t=n,i){if(e===ee)return e;let r=i!==void 0?t._$Co?.[i]:t._$Cl,o=he(e)?void 0:e._$litDirective$;return r?.constructor!==o&&(r?._$AO?.(!1),o===void 0?r=void 0:(r=new o(n),r._$AT(n,t,i)),i!==void 0?(t._$Co??=[])[i]=r:t._$Cl=r),r!==void 0&&(e=te(n,r._$AS(n,e.values),r,i)),e}var Ae=class{constructor(e,t){this._$AV=[],this._$AN=void 0,this._$AD=e,this._$AM=t}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(e){let{el:{content:t},parts:i}=this._$AD,r=(e?.creationScope??Z).importNode(t,!0);X.currentNode=r;let o=X.nextNode(),l=0,f=0,p=i[0];for(;p!==void 0;){if(l===p.index){let g;p.type===2?g=new le(o,o.nextSibling,this,e):p.type===1?g=new p.ctor(o,p.name,p.strings,this,e):p.type===6&&(g=new Ce(o,this,e)),this._$AV.push(g),p=i[++f]}l!==p?.index&&(o=X.nextNode(),l++)}return X.currentNode=Z,r}p(e){let t=0;for(let i of this._$AV)i!==void 0&&(i.strings!==void 0?(i._$AI(e,i,t),t+=i.strings.length-2):i._$AI(e[t])),t++}},le=class n{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(e,t,i,r){this.type=2,this._$AH=y,this._$AN=void 0,this._$AA=e,this._$AB=t,this._$AM=i,this.options=r,this._$Cv=r?.isConnected??!0}get parentNode(){let e=this._$AA.parentNode,t=this._$AM;return t!==void 0&&e?.nodeType===11&&(e=t.parentNode),e}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(e,t=this){e=te(this,e,t),he(e)?e===y||e==null||e===""?(this._$AH!==y&&this._$AR(),this._$AH=y):e!==this._$AH&&e!==ee&&this._(e):e._$litType$!==void 0?this.$(e):e.nodeType!==void 0?this.T(e):kt(e)?this.k(e):this._(e)}O(e){return this._$AA.parentNode.insertBefore(e,this._$AB)}T(e){this._$AH!==e&&(this._$AR(),this._$AH=this.O(e))}_(e){this._$AH!==y&&he(this._$AH)?this._$AA.nextSibling.data=e:this.T(Z.createTextNode(e)),this._$AH=e}$(e){let{values:t,_$litType$:i}=e,r=typeof i=="number"?this._$AC(e):(i.el===void 0&&(i.el=me.createElement(xt(i.h,i.h[0]),this.options)),i);if(this._$AH?._$AD===r)this._$AH.p(t);else{let o=new Ae(r,this),l=o.u(this.options);o.p(t),this.T(l),this._$AH=o}}_$AC(e){let t=wt.get(e.strings);return t===void 0&&wt.set(e.strings,t=new me(e)),t}k(e){Ye(this._$AH)||(this._$AH=[],this._$AR());let t=this._$AH,i,r=0;for(let o of e)r===t.length?t.push(i=new n(this.O(pe()),this.O(pe()),this,this.options)):i=t[r],i._$AI(o),r++;r<t.length&&(this._$AR(i&&i._$AB.nextSibling,r),t.length=r)}_$AR(e=this._$AA.nextSibling,t){for(this._$AP?.(!1,!0,t);e!==this._$AB;){let i=gt(e).nextSibling;gt(e).remove(),e=i}}setConnected(e){this._$AM===void 0&&(this._$Cv=e,this._$AP?.(e))}},ne=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(e,t,i,r,o){this.type=1,this._$AH=y,this._$AN=void 0,this.element=e,this.name=t,this._$AM=r,this.options=o,i.length>2||i[0]!==""||i[1]!==""?(this._$AH=Array(i.length-1).fill(new String),this.strings=i):this._$AH=y}_$AI(e,t=this,i,r){let o=this.strings,l=!1;if(o===void 0)e=te(this,e,t,0),l=!he(e)||e!==this._$AH&&e!==ee,l&&(this._$AH=e);else{let f=e,p,g;for(e=o[0],p=0;p<o.length-1;p++)g=te(this,f[i+p],t,p),g===ee&&(g=this._$AH[p]),l||=!he(g)||g!==this._$AH[p],g===y?e=y:e!==y&&(e+=(g??"")+o[p+1]),this._$AH[p]=g}l&&!r&&this.j(e)}j(e){e===y?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,e??"")}},Re=class extends ne{constructor(){super(...arguments),this.type=3}j(e){this.element[this.name]=e===y?void 0:e}},Ie=class extends ne{constructor(){super(...arguments),this.type=4}j(e){this.element.toggleAttribute(this.name,!!e&&e!==y)}},qe=class extends ne{constructor(e,t,i,r,o){super(e,t,i,r,o),this.type=5}_$AI(e,t=this){if((e=te(this,e,t,0)??y)===ee)return;let i=this._$AH,r=e===y&&i!==y||e.capture!==i.capture||e.once!==i.once||e.passive!==i.passive,o=e!==y&&(i===y||r);r&&this.element.removeEventListener(this.name,this,i),o&&this.element.addEventListener(this.name,this,e),this._$AH=e}handleEvent(e){typeof this._$AH=="function"?this._$AH.call(this.options?.host??this.element,e):this._$AH.handleEvent(e)}},Ce=class{constructor(e,t,i){this.element=e,this.type=6,this._$AN=void 0,this._$AM=t,this.options=i}get _$AU(){return this._$AM._$AU}_$AI(e){te(this,e)}},Tt={M:Ke,P:U,A:ze,C:1,L:St,R:Ae,D:kt,V:te,I:le,H:ne,N:Ie,U:qe,B:Re,F:Ce},En=Ge.litHtmlPolyfillSupport;En?.(me,le),(Ge.litHtmlVersions??=[]).push("3.3.3");var se=(n,e,t)=>{let i=t?.renderBefore??e,r=i._$litPart$;if(r===void 0){let o=t?.renderBefore??null;i._$litPart$=r=new le(e.insertBefore(pe(),o),o,void 0,t??{})}return r._$AI(n),r};var Et={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},At=n=>(...e)=>({_$litDirective$:n,values:e}),Pe=class{constructor(e){}get _$AU(){return this._$AM._$AU}_$AT(e,t,i){this._$Ct=e,this._$AM=t,this._$Ci=i}_$AS(e,t){return this.update(e,t)}update(e,t){return this.render(...t)}};var{I:An}=Tt,Rt=n=>n;var It=()=>document.createComment(""),ce=(n,e,t)=>{let i=n._$AA.parentNode,r=e===void 0?n._$AB:e._$AA;if(t===void 0){let o=i.insertBefore(It(),r),l=i.insertBefore(It(),r);t=new An(o,l,n,n.options)}else{let o=t._$AB.nextSibling,l=t._$AM,f=l!==n;if(f){let p;t._$AQ?.(n),t._$AM=n,t._$AP!==void 0&&(p=n._$AU)!==l._$AU&&t._$AP(p)}if(o!==r||f){let p=t._$AA;for(;p!==o;){let g=Rt(p).nextSibling;Rt(i).insertBefore(p,r),p=g}}}return t},G=(n,e,t=n)=>(n._$AI(e,t),n),Rn={},qt=(n,e=Rn)=>n._$AH=e,Ct=n=>n._$AH,Le=n=>{n._$AR(),n._$AA.remove()};var Pt=(n,e,t)=>{let i=new Map;for(let r=e;r<=t;r++)i.set(n[r],r);return i},fe=At(class extends Pe{constructor(n){if(super(n),n.type!==Et.CHILD)throw Error("repeat() can only be used in text expressions")}dt(n,e,t){let i;t===void 0?t=e:e!==void 0&&(i=e);let r=[],o=[],l=0;for(let f of n)r[l]=i?i(f,l):l,o[l]=t(f,l),l++;return{values:o,keys:r}}render(n,e,t){return this.dt(n,e,t).values}update(n,[e,t,i]){let r=Ct(n),{values:o,keys:l}=this.dt(e,t,i);if(!Array.isArray(r))return this.ut=l,o;let f=this.ut??=[],p=[],g,d,h=0,v=r.length-1,b=0,w=o.length-1;for(;h<=v&&b<=w;)if(r[h]===null)h++;else if(r[v]===null)v--;else if(f[h]===l[b])p[b]=G(r[h],o[b]),h++,b++;else if(f[v]===l[w])p[w]=G(r[v],o[w]),v--,w--;else if(f[h]===l[w])p[w]=G(r[h],o[w]),ce(n,p[w+1],r[h]),h++,w--;else if(f[v]===l[b])p[b]=G(r[v],o[b]),ce(n,r[h],r[v]),v--,b++;else if(g===void 0&&(g=Pt(l,b,w),d=Pt(f,h,v)),g.has(f[h]))if(g.has(f[v])){let P=d.get(l[b]),m=P!==void 0?r[P]:null;if(m===null){let T=ce(n,r[h]);G(T,o[b]),p[b]=T}else p[b]=G(m,o[b]),ce(n,r[h],m),r[P]=null;b++}else Le(r[v]),v--;else Le(r[h]),h++;for(;b<=w;){let P=ce(n,p[w+1]);G(P,o[b]),p[b++]=P}for(;h<=v;){let P=r[h++];P!==null&&Le(P)}return this.ut=l,qt(n,p),ee}});var Lt={not_configured:503,unauthorized:401,forbidden:403,rate_limited:429,payload_too_large:413,not_found:404,method_not_allowed:405,bad_request:400,conflict:409,internal:500};(!globalThis.EventTarget||!globalThis.Event)&&console.error(`
  PartySocket requires a global 'EventTarget' class to be available!
  You can polyfill this global by adding this to your code before any partysocket imports: 
  
  \`\`\`
  import 'partysocket/event-target-polyfill';
  \`\`\`
  Please file an issue at https://github.com/partykit/partykit if you're still having trouble.
`);var Dt=class extends Event{message;error;constructor(n,e){super("error",e),this.message=n.message,this.error=n}},Nt=class extends Event{code;reason;wasClean=!0;constructor(n=1e3,e="",t){super("close",t),this.code=n,this.reason=e}},Qe={Event,ErrorEvent:Dt,CloseEvent:Nt};function In(n,e){if(!n)throw new Error(e)}function qn(n){return new n.constructor(n.type,n)}function Cn(n){return"data"in n?new MessageEvent(n.type,n):"code"in n||"reason"in n?new Nt(n.code||1999,n.reason||"unknown reason",n):"error"in n?new Dt(n.error,n):new Event(n.type,n)}var Pn=typeof process<"u"&&typeof process.versions?.node<"u",Ln=typeof navigator<"u"&&navigator.product==="ReactNative",Me=Pn||Ln?Cn:qn,re={maxReconnectionDelay:1e4,minReconnectionDelay:3e3,minUptime:5e3,reconnectionDelayGrowFactor:1.3,connectionTimeout:4e3,maxRetries:Number.POSITIVE_INFINITY,maxEnqueuedMessages:Number.POSITIVE_INFINITY,startClosed:!1,debug:!1},Mt=!1;function Mn(){}var Ot=class K extends EventTarget{_ws;_retryCount=-1;_uptimeTimeout;_connectTimeout;_shouldReconnect=!0;_connectLock=!1;_binaryType="blob";_closeCalled=!1;_didWarnAboutClosedSend=!1;_messageQueue=[];_debugLogger=console.log.bind(console);_url;_protocols;_options;constructor(e,t,i={}){super(),this._url=e,this._protocols=t,this._options=i,this._options.startClosed&&(this._shouldReconnect=!1),this._options.debugLogger&&(this._debugLogger=this._options.debugLogger),this._connect()}static get CONNECTING(){return 0}static get OPEN(){return 1}static get CLOSING(){return 2}static get CLOSED(){return 3}get CONNECTING(){return K.CONNECTING}get OPEN(){return K.OPEN}get CLOSING(){return K.CLOSING}get CLOSED(){return K.CLOSED}get binaryType(){return this._ws?this._ws.binaryType:this._binaryType}set binaryType(e){this._binaryType=e,this._ws&&(this._ws.binaryType=e)}get retryCount(){return Math.max(this._retryCount,0)}get bufferedAmount(){return this._messageQueue.reduce((e,t)=>(typeof t=="string"?e+=t.length:t instanceof Blob?e+=t.size:e+=t.byteLength,e),0)+(this._ws?this._ws.bufferedAmount:0)}get extensions(){return this._ws?this._ws.extensions:""}get protocol(){return this._ws?this._ws.protocol:""}get readyState(){return this._closeCalled?K.CLOSED:this._ws?this._ws.readyState:this._options.startClosed?K.CLOSED:K.CONNECTING}get url(){return this._ws?this._ws.url:""}get shouldReconnect(){return this._shouldReconnect}onclose=null;onerror=null;onmessage=null;onopen=null;close(e=1e3,t){if(this._closeCalled=!0,this._shouldReconnect=!1,this._clearTimeouts(),!this._ws){this._debug("close enqueued: no ws instance");return}if(this._ws.readyState===this.CLOSED||this._ws.readyState===this.CLOSING){this._debug("close: already closing or closed");return}this._disconnect(e,t)}reconnect(e,t){this._shouldReconnect=!0,this._closeCalled=!1,this._didWarnAboutClosedSend=!1,this._retryCount=-1,!this._ws||this._ws.readyState===this.CLOSED||this._ws.readyState===this.CLOSING?this._connect():(this._disconnect(e,t),this._connect())}send(e){if(this._ws&&this._ws.readyState===this.OPEN)return this._debug("send",e),this._ws.send(e),!0;this._closeCalled&&!this._didWarnAboutClosedSend&&(this._didWarnAboutClosedSend=!0,console.warn("ReconnectingWebSocket: send() was called after close(). The message has been buffered, but it will only be delivered if reconnect() is called on this socket. If this socket has been discarded, the message is lost — this usually means a stale socket reference is being used."));let{maxEnqueuedMessages:t=re.maxEnqueuedMessages}=this._options;return this._messageQueue.length<t&&(this._debug("enqueue",e),this._messageQueue.push(e)),!1}drainQueuedMessages(){let e=this._messageQueue;return this._messageQueue=[],e}_debug(...e){this._options.debug&&this._debugLogger("RWS>",...e)}_getNextDelay(){let{reconnectionDelayGrowFactor:e=re.reconnectionDelayGrowFactor,minReconnectionDelay:t=re.minReconnectionDelay,maxReconnectionDelay:i=re.maxReconnectionDelay}=this._options,r=0;return this._retryCount>0&&(r=t*e**(this._retryCount-1),r>i&&(r=i)),this._debug("next delay",r),r}_wait(){return new Promise(e=>{setTimeout(e,this._getNextDelay())})}_getNextProtocols(e){if(!e)return Promise.resolve(null);if(typeof e=="string"||Array.isArray(e))return Promise.resolve(e);if(typeof e=="function"){let t=e();if(!t)return Promise.resolve(null);if(typeof t=="string"||Array.isArray(t))return Promise.resolve(t);if(t.then)return t}throw Error("Invalid protocols")}_getNextUrl(e){if(typeof e=="string")return Promise.resolve(e);if(typeof e=="function"){let t=e();if(typeof t=="string")return Promise.resolve(t);if(t.then)return t}throw Error("Invalid URL")}_connect(){if(this._connectLock||!this._shouldReconnect)return;this._connectLock=!0;let{maxRetries:e=re.maxRetries,connectionTimeout:t=re.connectionTimeout}=this._options;if(this._retryCount>=e){this._debug("max retries reached",this._retryCount,">=",e),this._connectLock=!1;return}this._retryCount++,this._debug("connect",this._retryCount),this._removeListeners(),this._wait().then(()=>Promise.all([this._getNextUrl(this._url),this._getNextProtocols(this._protocols||null)])).then(([i,r])=>{if(this._closeCalled){this._connectLock=!1;return}!this._options.WebSocket&&typeof WebSocket>"u"&&!Mt&&(console.error(`‼️ No WebSocket implementation available. You should define options.WebSocket. 

For example, if you're using node.js, run \`npm install ws\`, and then in your code:

import PartySocket from 'partysocket';
import WS from 'ws';

const partysocket = new PartySocket({
  host: "127.0.0.1:1999",
  room: "test-room",
  WebSocket: WS
});

`),Mt=!0);let o=this._options.WebSocket||WebSocket;this._debug("connect",{url:i,protocols:r}),this._ws=r?new o(i,r):new o(i),this._ws.binaryType=this._binaryType,this._connectLock=!1,this._addListeners(),this._connectTimeout=setTimeout(()=>this._handleTimeout(),t)}).catch(i=>{this._connectLock=!1,this._handleError(new Qe.ErrorEvent(Error(i.message),this))})}_handleTimeout(){this._debug("timeout event"),this._handleError(new Qe.ErrorEvent(Error("TIMEOUT"),this))}_disconnect(e=1e3,t){if(this._clearTimeouts(),!!this._ws){this._removeListeners();try{(this._ws.readyState===this.OPEN||this._ws.readyState===this.CONNECTING)&&this._ws.close(e,t),this._handleClose(new Qe.CloseEvent(e,t,this))}catch{}}}_acceptOpen(){this._debug("accept open"),this._retryCount=0}_handleOpen=e=>{this._debug("open event");let{minUptime:t=re.minUptime}=this._options;clearTimeout(this._connectTimeout),this._uptimeTimeout=setTimeout(()=>this._acceptOpen(),t),In(this._ws,"WebSocket is not defined"),this._ws.binaryType=this._binaryType,this._messageQueue.forEach(i=>{this._ws?.send(i)}),this._messageQueue=[],this.onopen&&this.onopen(e),this.dispatchEvent(Me(e))};_handleMessage=e=>{this._debug("message event"),this.onmessage&&this.onmessage(e),this.dispatchEvent(Me(e))};_handleError=e=>{this._debug("error event",e.message),this._disconnect(void 0,e.message==="TIMEOUT"?"timeout":void 0),this.onerror&&this.onerror(e),this._debug("exec error listeners"),this.dispatchEvent(Me(e)),this._connect()};_handleClose=e=>{this._debug("close event"),this._clearTimeouts(),this._options.shouldReconnectOnClose&&!this._options.shouldReconnectOnClose(e)&&(this._shouldReconnect=!1),this._shouldReconnect&&this._connect(),this.onclose&&this.onclose(e),this.dispatchEvent(Me(e))};_removeListeners(){this._ws&&(this._debug("removeListeners"),this._ws.removeEventListener("open",this._handleOpen),this._ws.removeEventListener("close",this._handleClose),this._ws.removeEventListener("message",this._handleMessage),this._ws.removeEventListener("error",this._handleError),this._ws.addEventListener("error",Mn))}_addListeners(){this._ws&&(this._debug("addListeners"),this._ws.addEventListener("open",this._handleOpen),this._ws.addEventListener("close",this._handleClose),this._ws.addEventListener("message",this._handleMessage),this._ws.addEventListener("error",this._handleError))}_clearTimeouts(){clearTimeout(this._connectTimeout),clearTimeout(this._uptimeTimeout)}};var Dn=7e3,Nn=2e4;function Ht(n,e,t){let i=n.WebSocket??globalThis.WebSocket;if(!i)throw new Error("no WebSocket implementation: pass `WebSocket` (e.g. from the ws package)");let r=t.auth??(n.WebSocket&&n.token?"header":"ticket"),o=t.pingEveryMs??Dn,l=t.silenceMs??Nn,f=n.baseUrl.replace(/^http/,"ws"),p=n.token,g=t.after??0,d="connecting",h=!1,v=!1,b=Date.now(),w=0,P=t.ticket,m=new Map,T=E=>{E!==d&&(d=E,t.onState?.(E))},_=()=>{for(let E of m.values())E.reject(new D(0,"disconnected","the socket closed before an answer"));m.clear()},O=()=>{_(),v||T(h?"reconnecting":"connecting")},F=async()=>{try{for await(let E of n.history(e,g))for(let L of E){if(v)return;if(!(L.seq<=g)){if(L.seq!==g+1)return;g=L.seq,t.onFrame({type:"event",event:L})}}}catch{}},k=async()=>{(t.catchUp??"pages")==="pages"&&await F();let E=`${f}/v1/sessions/${encodeURIComponent(e)}/ws?after=${g}`;if(r==="ticket"){let L=P;if(P=void 0,!L)try{L=(await n.createTicket(e)).ticket}catch(I){let N=I;throw[401,403,404,503].includes(N.status)&&H(N),I}E+=`&ticket=${encodeURIComponent(L)}`}return E},$=r==="header"&&p?function(L){return new i(L,{headers:{authorization:`Bearer ${p}`}})}:i,M=new Ot(k,null,{WebSocket:$,minReconnectionDelay:t.minDelayMs??250,maxReconnectionDelay:t.maxDelayMs??1e4,reconnectionDelayGrowFactor:2,connectionTimeout:2e4}),H=E=>{v||(v=!0,clearInterval(Y),M.close(1e3,"gave up"),_(),T("closed"),t.onFatal?.(E))},B=E=>{b=Date.now();let L=typeof E=="string"?E:new TextDecoder().decode(E),I;try{I=JSON.parse(L)}catch{return}if(I.type!=="pong"){if(I.type==="event"){let N=I.event.seq;if(N<=g)return;if(N!==g+1){O(),M.reconnect(4e3,"gap");return}g=N}else if(I.type==="ready")h=!0,T("open");else if((I.type==="ack"||I.type==="error")&&I.id!==void 0&&m.has(I.id)){let N=m.get(I.id);m.delete(I.id),I.type==="ack"?N.resolve(I.result):N.reject(new D(Wt[I.error.code]??0,I.error.code,I.error.message));return}t.onFrame(I)}};M.addEventListener("open",()=>{b=Date.now()}),M.addEventListener("message",E=>B(E.data)),M.addEventListener("close",O);let Y=setInterval(()=>{v||M.readyState!==1||(Date.now()-b>l?(O(),M.reconnect(4001,"silent")):M.send('{"type":"ping"}'))},o);return{get lastSeq(){return g},get state(){return d},get retries(){return Math.max(0,M.retryCount)},send(E){if(M.readyState!==1||d!=="open")return Promise.reject(new D(0,"disconnected","the socket is not open"));let L=`c${++w}`,I=E.type==="message"&&!E.idempotencyKey?{...E,idempotencyKey:Xe()}:E;return new Promise((N,ke)=>{m.set(L,{resolve:N,reject:ke}),M.send(JSON.stringify({...I,id:L}))})},close(){v||(v=!0,clearInterval(Y),_(),M.close(1e3,"client closed"),T("closed"))}}}var Wt=Lt,D=class extends Error{status;code;constructor(e,t,i,r){super(i,r),this.name="HighwaterError",this.status=e,this.code=t}},On=500,ve=class{baseUrl;#t;#r;#n;constructor(e){this.baseUrl=e.baseUrl.replace(/\/+$/,""),this.#t=e.token;let t=e.fetch??globalThis.fetch;this.#r=(i,r)=>t(i,r),this.#n=e.WebSocket}createSession(e={}){return this.#e("POST","/v1/sessions",e)}listSessions(e={}){return this.#e("GET",`/v1/sessions${ye(e)}`)}async listChildren(e){let t=[];for(let i;;){let r=await this.listSessions({limit:100,...i?{before:i}:{}});if(t.push(...r.sessions.filter(o=>o.parentId===e)),!r.next)return t;i=r.next}}getSession(e){return this.#e("GET",q(e))}patchSession(e,t){return this.#e("PATCH",q(e),t)}sendMessage(e,t,i=Xe()){return this.#e("POST",`${q(e)}/messages`,{text:t,idempotencyKey:i})}stop(e){return this.#e("POST",`${q(e)}/stop`)}decideApproval(e,t,i,r={}){return this.#e("POST",`${q(e)}/approvals/${encodeURIComponent(t)}`,{decision:i,...r})}dismissRecoveryNotice(e,t){return this.#e("POST",`${q(e)}/recovery-notice/dismiss`,{atSeq:t})}events(e,t=0,i=500){return this.#e("GET",`${q(e)}/events${ye({after:t,limit:i})}`)}async*history(e,t=0,i=On){let r=t;for(;;){let o=i-r%i,l=await this.events(e,r,o);if(l.events.length>0&&(yield l.events,r=l.events.at(-1).seq),l.events.length<o)return}}transcript(e,t={}){return this.#e("GET",`${q(e)}/transcript${ye(t)}`)}context(e){return this.#e("GET",`${q(e)}/context`)}verify(e){return this.#e("GET",`${q(e)}/verify`)}async exportNdjson(e){return(await this.#s("GET",`${q(e)}/export`)).text()}files(e,t={}){return this.#e("GET",`${q(e)}/files${ye(t)}`)}providers(){return this.#e("GET","/v1/providers")}async file(e,t){let i=t.split("/").map(encodeURIComponent).join("/");return(await this.#s("GET",`${q(e)}/files/${i}`)).text()}async archive(e,t,i={}){return(await this.#s("GET",`${q(e)}/archive/${t}${ye(i)}`)).text()}inbox(e,t){return this.#e("POST",`${q(e)}/inbox`,t)}fork(e,t){return this.#e("POST",`${q(e)}/fork`,{throughSeq:t})}createTrigger(e,t){return this.#e("POST",`${q(e)}/triggers`,t)}triggers(e){return this.#e("GET",`${q(e)}/triggers`)}async deleteTrigger(e,t){await this.#s("DELETE",`${q(e)}/triggers/${encodeURIComponent(t)}`)}runs(e){return this.#e("GET",`${q(e)}/runs`)}resume(e,t,i){return this.#e("POST",`${q(e)}/runs/${encodeURIComponent(t)}/resume`,i)}records(e){return this.#e("GET",`${q(e)}/records`)}record(e,t){return this.#e("GET",`${q(e)}/records/${encodeURIComponent(t)}`)}putRecord(e,t,i){return this.#e("PUT",`${q(e)}/records/${encodeURIComponent(t)}`,i)}appendRecordEntry(e,t,i){return this.#e("POST",`${q(e)}/records/${encodeURIComponent(t)}/entries`,i)}createTicket(e){return this.#e("POST",`${q(e)}/tickets`)}async#e(e,t,i){return await(await this.#s(e,t,i)).json()}async#s(e,t,i){let r={};this.#t&&(r.authorization=`Bearer ${this.#t}`),i!==void 0&&(r["content-type"]="application/json");let o;try{o=await this.#r(`${this.baseUrl}${t}`,{method:e,headers:r,...i===void 0?{}:{body:JSON.stringify(i)}})}catch(g){throw new D(0,"network_error",`${e} ${t}: ${String(g)}`,{cause:g})}if(o.ok)return o;let l=await o.text().catch(()=>""),f=`http_${o.status}`,p=l.slice(0,500)||o.statusText;try{let g=JSON.parse(l);typeof g.error?.code=="string"&&(f=g.error.code),typeof g.error?.message=="string"&&(p=g.error.message)}catch{}throw new D(o.status,f,p)}connect(e,t){return Ht({baseUrl:this.baseUrl,token:this.#t,WebSocket:this.#n,createTicket:i=>this.createTicket(i),history:(i,r)=>this.history(i,r)},e,t)}};function Xe(){let n=crypto.getRandomValues(new Uint8Array(16));return`k-${Array.from(n,e=>e.toString(16).padStart(2,"0")).join("")}`}function q(n){return`/v1/sessions/${encodeURIComponent(n)}`}function ye(n){let e=new URLSearchParams;for(let[i,r]of Object.entries(n))r!==void 0&&e.set(i,String(r));let t=e.toString();return t?`?${t}`:""}function De(n){if(n===null||typeof n!="object"){let r=JSON.stringify(n);return r===void 0?"null":r}if(Array.isArray(n))return`[${n.map(De).join(",")}]`;let e=n,t=Object.keys(e).filter(r=>e[r]!==void 0).sort(),i="{";for(let r=0;r<t.length;r++){let o=t[r];r>0&&(i+=","),i+=`${JSON.stringify(o)}:${De(e[o])}`}return`${i}}`}var $s=64*1024;function Ft(n){let e=n.actions?.stateDelta?.recoveryNotice;return e?{rerun:e.rerun??[],needsReview:e.needsReview??[],reissued:e.reissued??[]}:null}function $e(n){return`Recovered after a restart: ${[`${n.rerun.length} call(s) re-run`,`${n.needsReview.length} need review`,`${n.reissued.length} model call(s) issued again`].join(", ")}.`}var Ne=class{items=[];spans=[];marks=[];lastSeq=0;#t=new Map;#r=new Map;#n=new Map;#e=null;add(e){if(e.seq<=this.lastSeq)return!1;this.lastSeq=e.seq;let t=Date.parse(e.at),i=e.content,r=e.actions??{},o=r.stateDelta??{},l=d=>this.items.push({...d,rev:0,at:e.at});if(i?.type==="text"&&(e.author==="user"||e.author==="model"))l({kind:"message",seq:e.seq,role:e.author==="user"?"user":"assistant",text:i.text,...e.source?{source:e.source}:{},...e.turnId?{turnId:e.turnId}:{}}),e.author==="user"&&e.turnId&&!this.#e&&(this.#e={kind:"turn",key:`turn:${e.turnId}`,label:i.text.slice(0,80),start:t,seq:e.seq},this.spans.push(this.#e));else if(i?.type==="thinking")l({kind:"thinking",seq:e.seq,text:i.text});else if(i?.type==="functionCall"){let d={kind:"tool",seq:e.seq,callId:i.callId,tool:i.name,args:i.args,state:"pending",rev:0,at:e.at};this.#t.set(i.callId,d),this.#r.set(i.callId,i.name),this.items.push(d)}else i?.type==="error"&&(l({kind:"error",seq:e.seq,code:i.code,message:i.message}),this.marks.push({kind:"error",at:t,label:`${i.code}: ${i.message}`,seq:e.seq}));if(r.permissionRequest){let d=this.#t.get(r.permissionRequest.callId);d&&this.#s(d,{state:"waiting_approval",requestId:r.permissionRequest.requestId}),this.#i({kind:"approval",key:`approval:${r.permissionRequest.requestId}`,label:`approval: ${r.permissionRequest.tool}`,start:t,seq:e.seq})}if(r.permissionDecision){let d=r.permissionDecision.requestId;if(r.permissionDecision.decision==="approve")for(let h of this.#t.values())h.requestId===d&&h.state==="waiting_approval"&&this.#s(h,{state:"pending"});this.#o(`approval:${d}`,t,r.permissionDecision.decision)}if(r.toolDispatch){let d=this.#t.get(r.toolDispatch.callId);d&&d.state!=="ok"&&this.#s(d,{state:"running",startedAt:t}),this.#i({kind:"tool",key:`tool:${r.toolDispatch.callId}`,label:r.toolDispatch.tool,start:t,seq:e.seq})}if(i?.type==="functionResponse"){let d=this.#t.get(i.callId);d&&this.#s(d,{state:i.status,response:i.response,endedAt:t,...r.toolRecovery?{recovery:r.toolRecovery.strategy}:{}}),this.#o(`tool:${i.callId}`,t,i.status)}if(r.modelRequest&&e.invocationId){let d=r.modelRequest.purpose,h=`model:${e.invocationId}`;this.#n.has(h)||this.#i({kind:"model",key:h,label:d==="compaction"?"compaction call":`model call (~${r.modelRequest.estimatedTokens} tokens)`,start:t,seq:e.seq}),this.#n.has(`attempt:${e.invocationId}`)||this.#i({kind:"attempt",key:`attempt:${e.invocationId}`,label:"attempt 1",start:t,seq:e.seq})}let f=o.modelAttempt;if(f){this.#o(`attempt:${f.invocationId}`,t,f.code);let d=Date.parse(f.retryAt);this.#i({kind:"attempt",key:`attempt:${f.invocationId}`,label:`attempt ${f.attempt+1}`,start:Number.isFinite(d)?Math.max(t,d):t,seq:e.seq}),f.code==="restart"&&this.marks.push({kind:"restart",at:t,label:"restart: call re-issued",seq:e.seq})}if(r.tokenUsage&&e.invocationId&&(this.#o(`attempt:${e.invocationId}`,t,"ok"),this.#o(`model:${e.invocationId}`,t,String(o.finishReason??"answered"))),o.checkpoint){let d=o.checkpoint;this.marks.push({kind:"compaction",at:t,label:`checkpoint through seq ${d.throughSeq??"?"}`,seq:e.seq})}let p=Ft(e);if(p&&(l({kind:"recovery",seq:e.seq,...p}),this.marks.push({kind:"recovery",at:t,label:$e(p),seq:e.seq})),o.runStarted?.cause==="recovery"&&this.marks.push({kind:"restart",at:t,label:"run taken over after a restart",seq:e.seq}),r.turnClose){l({kind:"turn",seq:e.seq,turnId:e.turnId,reason:r.turnClose.reason});for(let d of this.#n.values())d.end===void 0&&(d.end=t);this.#n.clear(),this.#e&&(this.#e.end=t,this.#e.outcome=r.turnClose.reason,this.#e=null)}return!0}toolOf(e){return this.#r.get(e)}#s(e,t){Object.assign(e,t),e.rev++}#i(e){this.spans.push(e),this.#n.set(e.key,e)}#o(e,t,i){let r=this.#n.get(e);r&&(r.end=Math.max(r.start,t),r.outcome=i,this.#n.delete(e))}};function Ut(n,e){let t=`${e.invocationId}:${e.kind}`,i=n.get(t),r=e.attempt??1;if(!(i&&r<i.attempt))if(e.replace||!i||r>i.attempt){for(let[o,l]of n)l.invocationId===e.invocationId&&l.attempt<r&&n.delete(o);n.set(t,{invocationId:e.invocationId,attempt:r,kind:e.kind,text:e.text})}else i.text+=e.text}function j(n){return n<1e3?`${Math.round(n)} ms`:n<6e4?`${(n/1e3).toFixed(1)} s`:n<36e5?`${Math.floor(n/6e4)} min ${String(Math.round(n%6e4/1e3)).padStart(2,"0")} s`:`${Math.floor(n/36e5)} h ${Math.round(n%36e5/6e4)} min`}function Oe(n){return n<1024?`${n} B`:n<1024*1024?`${(n/1024).toFixed(1)} KiB`:`${(n/1024/1024).toFixed(1)} MiB`}function jt(n){let e=n.actions??{};if(n.content)return n.content.type;for(let i of["permissionRequest","permissionDecision","toolDispatch","toolRecovery","modelRequest","turnClose","tokenUsage"])if(e[i])return i;let t=Object.keys(e.stateDelta??{});return t.length?`stateDelta.${t[0]}`:"event"}var Ze=[{kind:"turn",label:"Turns"},{kind:"model",label:"Model calls"},{kind:"attempt",label:"Attempts"},{kind:"tool",label:"Tool calls"},{kind:"approval",label:"Approvals"},{kind:"marks",label:"Events"}],z=30,et=96,ie=22;function Hn(n,e){let t=[.01,.02,.05,.1,.2,.5,1,2,5,10,15,30,60,120,300,600,900,1800,3600,7200,21600,43200,86400].map(i=>i*1e3);return t.find(i=>n/i<=e)??t.at(-1)}function Wn(n,e){let t=l=>n.filter(f=>f.kind===l),i=l=>{let f=l.map(d=>[d.start,d.end??e]).sort((d,h)=>d[0]-h[0]),p=0,g=null;for(let[d,h]of f)!g||d>g[1]?(g&&(p+=g[1]-g[0]),g=[d,h]):g[1]=Math.max(g[1],h);return g&&(p+=g[1]-g[0]),p},o=t("attempt").filter(l=>l.outcome&&l.outcome!=="ok").length;return[{kind:"turn",label:"Turns open",ms:i(t("turn")),count:t("turn").length},{kind:"model",label:"Model calls",ms:i(t("model")),count:t("model").length,...o?{extra:`${o} failed attempt${o===1?"":"s"} retried`}:{}},{kind:"tool",label:"Tool calls",ms:i(t("tool")),count:t("tool").length},{kind:"approval",label:"Waiting for approval",ms:i(t("approval")),count:t("approval").length}]}function Vt(n,e,t,i){if(n.length===0&&e.length===0)return c`<p class="muted empty">Nothing has happened yet: send a message and the timeline fills in.</p>`;let r=Math.min(...n.map(m=>m.start),...e.map(m=>m.at)),o=Math.max(r+10,...n.map(m=>m.end??t),...e.map(m=>m.at)),l=Math.max(120,i-et-12),f=m=>et+(m-r)/(o-r)*l,p=ie+Ze.length*z+4,g=Hn(o-r,Math.max(2,Math.floor(l/90))),d=[];for(let m=0;m<=o-r;m+=g)d.push(m);let h=m=>ie+Ze.findIndex(T=>T.kind===m)*z,v=m=>{let T=h(m.kind)+6,_=f(m.start),O=Math.max(2,f(m.end??t)-_),F=(m.end??t)-m.start,k=m.end===void 0?"open":m.outcome??"";return ge`<rect class="bar ${m.kind}" data-outcome=${k} x=${_.toFixed(1)} y=${T} width=${O.toFixed(1)} height=${z-12} rx="2"><title>${m.label} — ${j(F)}${m.end===void 0?" so far":""}${m.outcome?` (${m.outcome})`:""} · seq ${m.seq}</title></rect>`},b=m=>{let T=f(m.at),_=h("marks")+z/2;return ge`<g class="mark ${m.kind}"><path d="M${T.toFixed(1)} ${_-7} l6 7 l-6 7 l-6 -7 z"></path><title>${m.label} · seq ${m.seq}</title></g>`},w=Wn(n,t),P=o-r;return c`
    <figure class="timeline">
      <svg width=${i} height=${p} role="img" aria-label=${`Timeline over ${j(P)}: ${w.filter(m=>m.count).map(m=>`${m.label.toLowerCase()} ${j(m.ms)}`).join(", ")}`}>
        ${d.map(m=>ge`<line class="tick" x1=${f(r+m)} x2=${f(r+m)} y1=${ie-4} y2=${p}></line>
            <text class="tick-label" x=${f(r+m)+3} y=${ie-8}>+${j(m)}</text>`)}
        ${Ze.map((m,T)=>ge`<text class="lane-label" x="4" y=${ie+T*z+z/2+4}>${m.label}</text>
            <line class="lane" x1=${et} x2=${i} y1=${ie+(T+1)*z} y2=${ie+(T+1)*z}></line>`)}
        ${n.map(v)} ${e.map(b)}
      </svg>
      <figcaption>
        <strong>Where the time went</strong> (${j(P)} from first to last event)
        <ul class="totals">
          ${w.map(m=>c`<li data-kind=${m.kind}>
              <span class="swatch ${m.kind}"></span>${m.label}: <strong>${j(m.ms)}</strong>
              <span class="muted">(${m.count}${m.extra?`; ${m.extra}`:""})</span>
            </li>`)}
          <li><span class="swatch marks"></span>Compactions, recoveries, restarts, errors: ${e.length}</li>
        </ul>
      </figcaption>
    </figure>
  `}var Fn=5e3,Bt=400,tt=100,Un=400,V=[{id:"transcript",label:"Transcript"},{id:"context",label:"Context"},{id:"log",label:"Log"},{id:"files",label:"Files"},{id:"runs",label:"Runs"},{id:"timeline",label:"Timeline"}];function jn(n,e){return n.kind==="budget"?`Paused at the step budget: ${n.modelCalls??"?"} of ${e??"?"} model calls used this turn.`:n.kind==="child"?"Waiting for a sub-session to finish.":`Waiting${n.reason?`: ${n.reason}`:" for a resume"}.`}function Kt(n){let{client:e,id:t,root:i,handleAuth:r,errorText:o}=n,l=new Ne,f=new Map,p=new Map,g=new Map,d=null,h=null,v="connecting",b=null,w="",P=0,m=!1,T=!1,_=at(),O=!1,F=n.draft??"",k=null,$="",M=-1,H=null,B=null,Y="",E="idle",L=null,I,N="",ke=-1,W=null,oe=null,_e="",ot=-1;function at(){let s=location.hash.slice(1);return V.some(a=>a.id===s)?s:"transcript"}let lt=()=>{_=at(),Ve(),A()},xe=()=>A();window.addEventListener("hashchange",lt),window.addEventListener("online",xe),window.addEventListener("offline",xe);function A(){!P&&!m&&(P=requestAnimationFrame(an))}async function je(s,a){try{let u=s();if(u)return await u}catch(u){if(!(u instanceof D&&u.code==="disconnected"))throw u}return a()}async function Qt(s){let a=s.querySelector("textarea"),u=a.value;if(!u.trim())return;let x=n.randomKey();O=!0,w="",A();try{await je(()=>h?.send({type:"message",text:u,idempotencyKey:x}),()=>e.sendMessage(t,u,x)),a.value===u&&(a.value=""),F=""}catch(R){r(R)||(w=`Not sent: ${o(R)}`)}finally{O=!1,A(),a.focus()}}async function Xt(){try{ae(await je(()=>h?.send({type:"stop"}),()=>e.stop(t)))}catch(s){r(s)||(w=`Stop failed: ${o(s)}`),A()}}async function Zt(s){let a=i.querySelector("#message"),u=a?.value.trim()??"";try{await e.resume(t,s.runId,{waitId:s.waitId,...u?{text:u}:{}}),a&&(a.value="")}catch(x){r(x)||(w=`Resume failed: ${o(x)}`),A()}}async function ct(s,a,u){try{ae(await je(()=>h?.send({type:"approval",requestId:s,decision:a,argsDigest:u}),()=>e.decideApproval(t,s,a,{argsDigest:u})))}catch(x){if(r(x))return;w=x instanceof D&&x.status===409?`Not decided: ${x.message}. Reload to review the call again.`:`Decision failed: ${o(x)}`,A()}}async function en(s){try{ae(await e.dismissRecoveryNotice(t,s))}catch(a){if(r(a))return;a instanceof D&&a.status===409?ae(await e.getSession(t)):w=`Dismiss failed: ${o(a)}`,A()}}async function tn(s){s.preventDefault();try{let a=URL.createObjectURL(new Blob([await e.exportNdjson(t)],{type:"application/x-ndjson"})),u=document.createElement("a");u.href=a,u.download=`highwater-${t.slice(0,12)}.ndjson`,u.click(),setTimeout(()=>URL.revokeObjectURL(a),1e4)}catch(a){r(a)||(w=`Export failed: ${o(a)}`),A()}}async function nn(){E="running",A();try{E=await e.verify(t)}catch(s){E=`verify failed: ${o(s)}`}A()}function Ve(){_==="context"&&ut(),_==="log"&&!H&&Se(null),_==="files"&&Te(),_==="runs"&&dt()}async function dt(){let s=d?.highWater??0;if(ot!==s){ot=s;try{let[a,u]=await Promise.all([e.runs(t),e.triggers(t)]);oe={runs:a.runs,triggers:u.triggers},_e=""}catch(a){r(a)||(_e=o(a))}A()}}async function ut(){let s=d?.highWater??0;if(M!==s){M=s;try{k=await e.context(t),$=""}catch(a){r(a)||($=o(a))}A()}}async function Se(s){try{let a=s??Math.max(0,(d?.highWater??0)-tt);H=await e.events(t,a,tt),B=a,Y=""}catch(a){r(a)||(Y=o(a))}A()}async function Te(s=!1){let a=d?.highWater??0;if(!(!s&&ke===a)){ke=a;try{let u=await e.files(t,s&&I?{after:I}:{});L=s&&L?[...L,...u.files]:u.files,I=u.next,N=""}catch(u){r(u)||(N=o(u))}A()}}async function sn(s){W={path:s,content:null},A();try{W={path:s,content:await e.file(t,s)}}catch(a){r(a)||(W={path:s,content:null,error:o(a)})}A()}function ae(s){d=s,document.title=`${s.title||"Untitled session"} — highwater`,A()}function rn(s){if(s.type==="ready"||s.type==="session")s.type==="ready"&&f.clear(),ae(s.session);else if(s.type==="event"){let a=s.event;l.add(a),a.invocationId&&(a.content?.type==="text"||a.content?.type==="thinking")&&f.delete(`${a.invocationId}:${a.content.type}`),a.actions?.turnClose&&(f.clear(),_==="context"&&ut(),_==="files"&&Te(),_==="runs"&&dt()),a.content?.type==="functionResponse"&&_==="files"&&Te(),A()}else s.type==="delta"?(on(s),A()):s.type==="error"&&(w=`${s.error.code}: ${s.error.message}`,A())}function on(s){Ut(f,s)}function an(){if(P=0,m)return;let s=window.innerHeight+window.scrollY>=document.body.scrollHeight-120,a=performance.now();se(cn(),i),window.__hwDraws?.push(performance.now()-a),s&&_==="transcript"&&ln()&&window.scrollTo({top:document.body.scrollHeight})}let pt=0;function ln(){let s=l.lastSeq!==pt;return pt=l.lastSeq,s||f.size>0}function cn(){if(b)return c`<a href="/" data-nav class="back">← Sessions</a>
        <p class="error" role="alert">${b}</p>`;let s=d,a=Math.max(s?.highWater??0,l.lastSeq);return c`
      <a href="/" data-nav class="back">← Sessions</a>
      <header class="session-head">
        <h1>${s?s.title||"Untitled session":"Session"}</h1>
        <div class="meta">
          ${s?st(s.status):y} ${s?rt(s):y}
          <span class="muted count" aria-live="off">${a} events</span>
          ${Vn(s)}
          ${pn()}
        </div>
      </header>
      ${hn()}
      <p class="error" role="alert">${w}</p>
      <div class="tabs" role="tablist" aria-label="Session views" @keydown=${un}>
        ${V.map(u=>c`<button
            type="button"
            role="tab"
            id=${`tab-${u.id}`}
            aria-controls=${`panel-${u.id}`}
            aria-selected=${u.id===_?"true":"false"}
            tabindex=${u.id===_?"0":"-1"}
            @click=${()=>ht(u.id)}
          >${u.label}</button>`)}
      </div>
      <section class="panel" role="tabpanel" id=${`panel-${_}`} aria-labelledby=${`tab-${_}`}>
        ${_==="transcript"?gn():y} ${_==="context"?bn():y}
        ${_==="log"?kn():y} ${_==="files"?xn():y}
        ${_==="runs"?_n():y}
        ${_==="timeline"?Vt(l.spans,l.marks,Date.now(),dn()):y}
      </section>
      ${mn()}
    `}function dn(){let s=i.querySelector(".panel");return Math.max(280,Math.min((s?.clientWidth??i.clientWidth)-2||800,1200))}function ht(s){s!==_&&(history.replaceState(null,"",s==="transcript"?location.pathname:`#${s}`),_=s,Ve(),A())}function un(s){let a=V.findIndex(x=>x.id===_),u=s.key==="ArrowRight"?(a+1)%V.length:s.key==="ArrowLeft"?(a+V.length-1)%V.length:s.key==="Home"?0:s.key==="End"?V.length-1:-1;u<0||(s.preventDefault(),ht(V[u].id),requestAnimationFrame(()=>i.querySelector(`#tab-${V[u].id}`)?.focus()))}function pn(){let s=v!=="open"&&(!navigator.onLine||(h?.retries??0)>=3),a=v==="open"?"live":s?"offline":v==="reconnecting"?"reconnecting":"connecting";return c`<span class="conn" role="status" data-state=${a}>${a==="live"?"● live":a==="offline"?"○ offline — retrying":a==="reconnecting"?"◌ reconnecting…":"◌ connecting…"}</span>`}function hn(){let s=d?.recoveryNotice;if(!s)return y;let a=u=>c`<li><code>${l.toolOf(u)??"call"}</code> ${u}</li>`;return c`<section class="banner" aria-label="Recovery notice">
      <strong>This session recovered after a restart (event ${s.atSeq}).</strong>
      ${s.rerun.length?c`<p>Re-run (safe to repeat):</p><ul>${s.rerun.map(a)}</ul>`:y}
      ${s.needsReview.length?c`<p>Needs review (the side effect may or may not have happened):</p><ul>${s.needsReview.map(a)}</ul>`:y}
      <p class="recovery-summary">${$e(s)}</p>
      <button type="button" class="dismiss" @click=${()=>{en(s.atSeq)}}>Dismiss</button>
    </section>`}function mn(){let s=d,a=s?.wait??null;return c`<form
      class="composer"
      @submit=${u=>{u.preventDefault(),Qt(u.currentTarget)}}
    >
      <label for="message" class="sr-only">Message</label>
      <textarea
        id="message"
        rows="3"
        .value=${F}
        @input=${u=>{F=u.target.value}}
        placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
        @keydown=${u=>{u.key==="Enter"&&!u.shiftKey&&!u.isComposing&&(u.preventDefault(),u.currentTarget.form.requestSubmit())}}
      ></textarea>
      <div class="composer-actions">
        <button type="submit" ?disabled=${O}>Send</button>
        <button type="button" class="danger" ?disabled=${!s?.openTurn} @click=${()=>{Xt()}}>Stop</button>
        ${a&&a.kind!=="child"?c`<button type="button" @click=${()=>{Zt(a)}}>Resume</button>`:y}
      </div>
      ${a?c`<p class="wait-note muted" role="status">
              ${jn(a,s?.maxModelCallsPerTurn)}
            </p>`:y}
    </form>`}function gn(){let s=new Map(d?.pendingApprovals.map(S=>[S.requestId,S])),a=l.items,u=T||a.length<=Bt?a:a.slice(-Bt),x=a.length-u.length,R=[...f.values()];return c`
      ${x>0?c`<button type="button" class="link earlier" @click=${()=>{T=!0,A()}}>Show ${x} earlier items</button>`:y}
      ${a.length===0&&R.length===0?c`<p class="muted empty">No messages yet. Write one below; the agent answers here as it works.</p>`:y}
      <ol class="transcript" aria-label="Transcript" aria-busy=${R.length>0?"true":"false"}>
        ${fe(u,S=>`${S.kind}:${S.seq}`,S=>fn(S,s))}
      </ol>
      <div class="streaming" aria-hidden="true">
        ${R.map(S=>S.kind==="text"?c`<div class="item msg assistant streaming">
                <div class="who">Assistant${S.attempt>1?c` <span class="muted">(attempt ${S.attempt})</span>`:y}</div>
                <div class="text">${S.text}</div>
              </div>`:c`<details class="item thinking streaming"><summary>Thinking…</summary><pre>${S.text}</pre></details>`)}
      </div>
    `}function fn(s,a){let u=`${s.kind}:${s.seq}`,x=s.kind==="tool"&&s.requestId?a.get(s.requestId):void 0,R=x!==void 0,S=p.get(u),C=s.kind==="tool"&&s.startedAt!==void 0&&s.endedAt===void 0;if(S&&S.rev===s.rev&&!R&&!S.actionable&&!C)return S.tpl;let J=yn(s,x);return p.set(u,{rev:s.rev,actionable:R,tpl:J}),J}function yn(s,a){switch(s.kind){case"message":return c`<li class="item msg ${s.role}" data-seq=${s.seq}>
          <div class="who">
            ${s.role==="user"?"You":"Assistant"}
            ${s.source&&!["http","ws"].includes(s.source)?c`<span class="muted"> via ${s.source}</span>`:y}
          </div>
          <div class="text">${s.text}</div>
        </li>`;case"thinking":return c`<li class="item thinking" data-seq=${s.seq}>
          <details><summary>Thinking (${s.text.length} chars)</summary><pre>${s.text}</pre></details>
        </li>`;case"tool":return vn(s,a);case"error":return c`<li class="item error" role="note" data-seq=${s.seq}>
          <strong>Error (${s.code}): </strong>${s.message}
        </li>`;case"recovery":return c`<li class="item recovery" data-seq=${s.seq}>
          ${$e(s)}
        </li>`;case"turn":return c`<li class="item turn" data-seq=${s.seq} data-reason=${s.reason}>turn ${s.reason}</li>`;case"record":return c`<li class="item record" data-seq=${s.seq}>
          Work record <code>${s.topic}</code>:
          ${s.revision!==void 0?`revision ${s.revision}`:`entry ${s.entry}`}
        </li>`;case"fork":return c`<li class="item fork" data-seq=${s.seq}>
          Forked from <a href="/s/${s.sessionId}" data-nav>${s.sessionId.slice(0,12)}…</a> at seq ${s.throughSeq}
        </li>`}}function vn(s,a){let u=s.startedAt!==void 0?j((s.endedAt??Date.now())-s.startedAt):void 0,x=nt(s.args),R=c`<code class="tool-name">${s.tool}</code>
      <span class="badge" data-state=${s.state}>${s.state.replace("_"," ")}</span>
      ${u?c`<span class="muted duration">${u}${s.endedAt===void 0?"…":""}</span>`:y}
      ${s.recovery?c`<span class="badge recovery">${s.recovery==="rerun"?"re-run after restart":"needs review"}</span>`:y}`;if(a){let S=new TextEncoder().encode(JSON.stringify(s.args)??"").length,C=$n(a.requestId,s.args),J=typeof C=="string"&&C!==a.argsDigest,mt=typeof C=="string"?C:a.argsDigest;return c`<li class="item tool approval-card" data-seq=${s.seq} data-state=${s.state}>
        <div class="tool-head">${R}</div>
        <div class="block">
          <span class="label">Arguments, ${Oe(S)} · digest <code>${a.argsDigest.slice(0,12)}…</code></span>
          <pre class="args" tabindex="0" aria-label="Arguments of ${s.tool}">${x}</pre>
        </div>
        ${J?c`<p class="error" role="alert">
              These arguments do not match the digest of the pending call: reload before deciding.
            </p>`:y}
        <div class="approval" role="group" aria-label=${`Approval for ${s.tool}`}>
          <span>This call needs your approval.</span>
          <button type="button" ?disabled=${J||C==="pending"} @click=${()=>{ct(a.requestId,"approve",mt)}}>Approve</button>
          <button type="button" class="danger" ?disabled=${C==="pending"} @click=${()=>{ct(a.requestId,"reject",mt)}}>
            Reject
          </button>
        </div>
      </li>`}return c`<li class="item tool" data-seq=${s.seq} data-state=${s.state}>
      <details>
        <summary class="tool-head">${R}</summary>
        ${Gt("Arguments",x)} ${s.response!==void 0?Gt("Response",nt(s.response)):y}
      </details>
    </li>`}function $n(s,a){let u=g.get(s);if(u!==void 0)return u;g.set(s,"pending");let x=a?.$blob,R=S=>{g.set(s,S),A()};return x&&typeof x.sha256=="string"?R(x.sha256):crypto.subtle?crypto.subtle.digest("SHA-256",new TextEncoder().encode(De(a??null))).then(S=>R(Array.from(new Uint8Array(S),C=>C.toString(16).padStart(2,"0")).join("")),()=>R(null)):R(null),"pending"}function bn(){if($)return c`<p class="error" role="alert">${$}</p>`;if(!k)return c`<p class="muted">Loading the context…</p>`;let s=k,a=J=>`${(100*J/s.contextWindow).toFixed(1)}%`,u=JSON.stringify(s.messages),x=(u.match(/archive:\/\/[0-9a-f]{64}/g)??[]).length,R=d?.usage,S=R&&R.cachedInputTokens>0&&R.inputTokens>0?R.cachedInputTokens/R.inputTokens:null,C=s.estimatedTokens/s.threshold;return c`
      <div class="context">
        <p>
          <strong>${s.estimatedTokens.toLocaleString()}</strong> tokens estimated for the next model call, of a
          compaction threshold of <strong>${s.threshold.toLocaleString()}</strong>
          (${(C*100).toFixed(0)}%); window ${s.contextWindow.toLocaleString()}, ${s.maxOutputTokens.toLocaleString()}
          reserved for output.
        </p>
        <div
          class="meter"
          role="meter"
          aria-label="Context used"
          aria-valuemin="0"
          aria-valuemax=${s.threshold}
          aria-valuenow=${Math.min(s.estimatedTokens,s.threshold)}
          aria-valuetext=${`${s.estimatedTokens} of ${s.threshold} tokens before compaction`}
        >
          <div class="fill ${C>.9?"hot":""}" style="width:${a(Math.min(s.estimatedTokens,s.contextWindow))}"></div>
          <div class="threshold" style="left:${a(s.threshold)}" title="compaction threshold"></div>
          <div class="reserve" style="left:${a(s.contextWindow-s.maxOutputTokens)}" title="reserved for output"></div>
        </div>
        <div class="meter-legend muted">
          <span><span class="swatch fill"></span>estimate</span>
          <span><span class="swatch threshold"></span>threshold: compaction starts here</span>
          <span><span class="swatch reserve"></span>output reserve</span>
        </div>
        <dl class="facts">
          <dt>Checkpoint waterline</dt>
          <dd>
            ${s.checkpoint?c`events 1–${s.checkpoint.throughSeq} are summarised in checkpoint <code>${s.checkpoint.id}</code>;
                  raw from seq ${s.rawFromSeq}`:c`no checkpoint yet: the whole log from seq ${s.rawFromSeq} is sent raw`}
            ${wn(s.checkpoint?.throughSeq??0,d?.highWater??l.lastSeq)}
          </dd>
          <dt>Offloaded results</dt>
          <dd>${x} tool result${x===1?"":"s"} replaced by an archive placeholder</dd>
          <dt>Prompt-cache hit rate</dt>
          <dd>
            ${S!==null?c`${(S*100).toFixed(1)}% of ${R.inputTokens.toLocaleString()} input tokens were cached`:c`<span class="muted">not reported by this provider</span>`}
          </dd>
          <dt>Messages</dt>
          <dd>${s.messages.length} messages, ${Oe(new TextEncoder().encode(u).length)}</dd>
        </dl>
        ${s.checkpoint?c`<details><summary>Checkpoint summary</summary><pre>${s.checkpoint.summary}</pre></details>`:y}
        <details><summary>Messages as the next call sends them</summary><pre>${nt(s.messages)}</pre></details>
      </div>
    `}function wn(s,a){let u=a>0?100*s/a:0;return c`<div class="waterline" aria-hidden="true">
      <div class="summarised" style="width:${u.toFixed(1)}%"></div>
      <span class="muted">seq 1</span><span class="muted right">seq ${a}</span>
    </div>`}function kn(){let s=E,a=s==="idle"?y:s==="running"?c`<span class="verify" role="status">verifying…</span>`:typeof s=="string"?c`<span class="verify bad" role="status">${s}</span>`:s.ok?c`<span class="verify ok" role="status">✓ verified ${s.highWater} events, head <code>${s.headDigest.slice(0,12)}…</code></span>`:c`<span class="verify bad" role="status">✗ ${s.problems.length} problem(s): ${s.problems.slice(0,3).join("; ")}</span>`,u=H,x=u?.events[0]?.seq??0,R=u?.events.at(-1)?.seq??0,S=Math.max(u?.highWater??0,d?.highWater??0);return c`
      <div class="toolbar">
        <button type="button" @click=${()=>{nn()}}>Verify</button>
        <a href=${`/v1/sessions/${t}/export`} @click=${tn} download>Export</a>
        ${a}
      </div>
      ${Y?c`<p class="error" role="alert">${Y}</p>`:y}
      ${u?c`<div class="pager">
              <button type="button" ?disabled=${x<=1} @click=${()=>{Se(Math.max(0,(B??0)-tt))}}>Older</button>
              <span class="muted">seq ${x}–${R} of ${S}</span>
              <button type="button" ?disabled=${R>=S} @click=${()=>{Se(R)}}>Newer</button>
              <button type="button" class="link" @click=${()=>{Se(null)}}>Latest</button>
            </div>
            <div class="table-wrap">
              <table class="log">
                <thead><tr><th>seq</th><th>time</th><th>author</th><th>kind</th><th>digest</th></tr></thead>
                <tbody>
                  ${fe(u.events,C=>C.seq,C=>c`<tr data-seq=${C.seq}>
                      <td>${C.seq}</td>
                      <td><time datetime=${C.at}>${new Date(C.at).toLocaleTimeString()}</time></td>
                      <td>${C.author}</td>
                      <td><code>${jt(C)}</code>${C.modelVisibility==="hidden"?c` <span class="muted">hidden</span>`:y}</td>
                      <td><code title=${C.digest}>${C.digest.slice(0,12)}</code></td>
                    </tr>`)}
                </tbody>
              </table>
            </div>`:c`<p class="muted">Loading the log…</p>`}
    `}function _n(){if(_e)return c`<p class="error" role="alert">${_e}</p>`;if(!oe)return c`<p class="muted">Loading runs…</p>`;let s=d?.parentId;return c`
      ${s?c`<p>A sub-session of <a href="/s/${s}" data-nav>${s.slice(0,12)}…</a></p>`:y}
      <h2>Triggers</h2>
      ${oe.triggers.length===0?c`<p class="muted empty">No triggers: scheduled runs appear here once one is created.</p>`:c`<ul class="triggers">
              ${oe.triggers.map(a=>c`<li><code>${a.name}</code> ${JSON.stringify(a.schedule)}
                  ${a.nextAt?c`<span class="muted">next ${new Date(a.nextAt).toLocaleString()}</span>`:y}</li>`)}
            </ul>`}
      <h2>Runs</h2>
      ${oe.runs.length===0?c`<p class="muted empty">No runs yet.</p>`:c`<table class="runs">
              <thead><tr><th>run</th><th>trigger</th><th>state</th><th>outcome</th><th>started</th></tr></thead>
              <tbody>
                ${oe.runs.map(a=>c`<tr>
                    <td><code>${a.runId.slice(0,8)}</code></td>
                    <td>${a.trigger??"—"}</td>
                    <td>${a.state}${a.waitId?c` <span class="muted">(${a.waitId})</span>`:y}</td>
                    <td>${a.outcome??""}</td>
                    <td>${new Date(a.startedAt).toLocaleString()}</td>
                  </tr>`)}
              </tbody>
            </table>`}`}function xn(){return N?c`<p class="error" role="alert">${N}</p>`:L?L.length===0?c`<p class="muted empty">The workspace is empty: files the agent writes appear here.</p>`:c`
      <div class="files">
        <ul class="file-list" aria-label="Workspace files">
          ${L.map(s=>c`<li>
              <button type="button" class="link" aria-current=${W?.path===s.path?"true":"false"} @click=${()=>{sn(s.path)}}>${s.path}</button>
              <span class="muted">${Oe(s.bytes)} · ${new Date(s.updatedAt).toLocaleString()}</span>
            </li>`)}
          ${I?c`<li><button type="button" class="link" @click=${()=>{Te(!0)}}>More</button></li>`:y}
        </ul>
        ${W?c`<article class="file" aria-label=${W.path}>
              <h2><code>${W.path}</code></h2>
              ${W.error?c`<p class="error">${W.error}</p>`:W.content===null?c`<p class="muted">Loading…</p>`:c`<pre class="file-content">${W.content}</pre>`}
            </article>`:c`<p class="muted">Open a file to read it.</p>`}
      </div>
    `:c`<p class="muted">Loading the workspace…</p>`}A(),(async()=>{try{let s=await e.getSession(t);if(m)return;ae(s),Ve(),h=e.connect(t,{after:Math.max(0,s.highWater-Fn),onFrame:rn,onState:a=>{v=a,A()},onFatal:a=>{r(a)||(w=`Disconnected: ${o(a)}`),A()}})}catch(s){if(r(s))return;b=s instanceof D&&s.status===404?"No such session.":o(s),A()}})();let Sn=setInterval(()=>{(_==="timeline"||v!=="open"||l.items.some(s=>s.kind==="tool"&&s.state==="running"))&&A()},1e3);return()=>{m=!0,h?.close(),h=null,clearInterval(Sn),window.removeEventListener("hashchange",lt),window.removeEventListener("online",xe),window.removeEventListener("offline",xe),P&&cancelAnimationFrame(P),se(y,i)}}function nt(n){return typeof n=="string"?n:JSON.stringify(n,null,2)??String(n)}function Gt(n,e){return e.length>Un||e.split(`
`).length>12?c`<details class="block"><summary>${n} (${e.length} chars)</summary><pre>${e}</pre></details>`:c`<div class="block"><span class="label">${n}</span><pre>${e}</pre></div>`}function st(n){return c`<span class="pill" data-status=${n}>${n.replace("_"," ")}</span>`}function rt(n){return c`<span class="model"
    >${n.model.name}${n.model.provider==="demo"?c`<span class="demo" title="highwater's built-in offline model: deterministic, no API key">demo model</span>`:y}</span
  >`}function Vn(n){let e=n?.placement;return!e||!e.locationHint&&!e.jurisdiction?y:c`<span class="muted placement">${[e.jurisdiction&&`jurisdiction ${e.jurisdiction}`,e.locationHint&&`near ${e.locationHint}`].filter(Boolean).join(" · ")}</span>`}var We="highwater.token",it="highwater.draft.",Bn=3e3,Gn=["wnam","enam","sam","weur","eeur","apac","oc","afr","me"],Kn=["write_file","edit_file","delete_file","http_fetch"],zn="Draft the release notes for version two",Fe=document.getElementById("app"),Yn=document.getElementById("top-actions"),be=null,de=()=>{};function Yt(n){history.pushState(null,"",n),we()}document.addEventListener("click",n=>{let e=n.target.closest?.("a[data-nav]");!e||n.defaultPrevented||n.button!==0||n.metaKey||n.ctrlKey||n.shiftKey||(n.preventDefault(),Yt(e.getAttribute("href")))});window.addEventListener("popstate",we);function Jn(){return Array.from(crypto.getRandomValues(new Uint8Array(16)),n=>n.toString(16).padStart(2,"0")).join("")}function Ue(n){return n instanceof D?`${n.code}: ${n.message}`:String(n)}function He(n){return n instanceof D&&n.status===401?(de(),de=()=>{},sessionStorage.removeItem(We),be=null,Jt("That token was not accepted. Paste a valid API token."),!0):!1}function we(){de(),de=()=>{};let n=sessionStorage.getItem(We);if(be=n?new ve({baseUrl:location.origin,token:n}):null,se(n?c`<button
          type="button"
          class="link"
          @click=${()=>{sessionStorage.removeItem(We),we()}}
        >Forget token</button>`:y,Yn),!be)return Jt();let e=/^\/s\/([^/]+)\/?$/.exec(location.pathname);if(e){let t=decodeURIComponent(e[1]),i=sessionStorage.getItem(it+t)??void 0;sessionStorage.removeItem(it+t),de=Kt({client:be,id:t,root:Fe,handleAuth:He,errorText:Ue,randomKey:Jn,...i?{draft:i}:{}})}else de=Xn(be)}function Jt(n){document.title="highwater";let e=n??"",t=()=>se(c`<form
        class="card"
        @submit=${async i=>{i.preventDefault();let o=i.currentTarget.querySelector("#token").value.trim();try{await new ve({baseUrl:location.origin,token:o}).listSessions({limit:1}),sessionStorage.setItem(We,o),we()}catch(l){e=l instanceof D&&l.status===401?"That token was not accepted.":Ue(l),t()}}}
      >
        <h1>Connect</h1>
        <p>
          Paste an API token: one of the Worker's <code>API_TOKENS</code>. <code>npm start</code> prints one as
          <code>highwater: token …</code>. It stays in this tab only (session storage).
        </p>
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="off" required spellcheck="false" />
        <button type="submit">Connect</button>
        <p class="error" role="alert">${e}</p>
      </form>`,Fe);t(),Fe.querySelector("#token")?.focus()}var zt=()=>({title:"",system:"",provider:"",name:"",contextWindow:"",approve:new Set,approvePaths:"",locationHint:"",jurisdiction:""});function Qn(n){let e=n.approvePaths.split(",").map(o=>o.trim()).filter(Boolean),t=new Set(["write_file","edit_file","delete_file"]),i=[...n.approve].map(o=>e.length&&t.has(o)?{tool:o,match:{path:e}}:{tool:o}),r={};return n.provider&&(r.provider=n.provider),n.name.trim()&&(r.name=n.name.trim()),n.contextWindow.trim()&&(r.contextWindow=Number(n.contextWindow)),{...n.title.trim()?{title:n.title.trim()}:{},...n.system.trim()?{system:n.system}:{},...Object.keys(r).length?{model:r}:{},...i.length?{approvals:i}:{},...n.locationHint?{locationHint:n.locationHint}:{},...n.jurisdiction?{jurisdiction:n.jurisdiction}:{}}}function Xn(n){document.title="Sessions — highwater";let e=zt(),t=null,i="",r=!1,o=null,l,f=!1,p=0,g="",d,h=!1,v=()=>{h||se(_(),Fe)};async function b(){try{t=(await n.providers()).providers;let k=t.find($=>$.isDefault)??t[0];k&&!e.provider&&(e.provider=k.name)}catch(k){He(k)||(t=[])}v()}async function w(k=!1){try{let $=await n.listSessions(k&&l?{before:l}:{});if(k)o=[...o??[],...$.sessions],l=$.next,f=!0;else{let M=new Set($.sessions.map(B=>B.id)),H=f?(o??[]).slice(p).filter(B=>!M.has(B.id)):[];o=[...$.sessions,...H],p=$.sessions.length,f||(l=$.next)}g=""}catch($){He($)||(g=Ue($))}v()}function P(){e={...zt(),provider:t?.find(k=>k.demo)?.name??e.provider,title:"Demo: release notes",approve:new Set(["write_file"]),approvePaths:"notes/task.md"},d=zn,v()}async function m(k){k.preventDefault(),r=!0,i="",v();try{let $=await n.createSession(Qn(e));d&&sessionStorage.setItem(it+$.id,d),Yt(`/s/${$.id}`)}catch($){He($)||(i=Ue($)),r=!1,v()}}let T=k=>$=>{e={...e,[k]:$.target.value},v()},_=()=>{let k=t?.find($=>$.name===e.provider);return c`
      <form class="card create" @submit=${m}>
        <div class="form-head">
          <h2>Start a session</h2>
          <button type="button" class="secondary" @click=${P}>Demo preset</button>
        </div>
        <p class="muted">
          The demo preset uses the offline demo model and asks for your approval before it writes
          <code>notes/task.md</code>.
        </p>
        <label for="new-title">Title</label>
        <input id="new-title" maxlength="500" placeholder="e.g. Draft the release notes" .value=${e.title} @input=${T("title")} />
        <label for="new-system">System prompt</label>
        <textarea id="new-system" rows="2" maxlength="65536" placeholder="Optional extra instructions" .value=${e.system} @input=${T("system")}></textarea>
        <fieldset>
          <legend>Model</legend>
          <div class="row">
            <span class="cell">
              <label for="new-provider">Provider</label>
              <select id="new-provider" .value=${e.provider} @change=${T("provider")}>
                ${(t??[]).map($=>c`<option value=${$.name} ?selected=${$.name===e.provider}>
                    ${$.name}${$.demo?" (offline demo)":""}${$.isDefault?" — default":""}
                  </option>`)}
              </select>
            </span>
            <span class="cell">
              <label for="new-model">Name</label>
              <input id="new-model" placeholder=${k?.defaultModel??"the provider's default"} .value=${e.name} @input=${T("name")} />
            </span>
            <span class="cell">
              <label for="new-window">Context window</label>
              <input id="new-window" type="number" min="1024" step="1024" placeholder="128000" .value=${e.contextWindow} @input=${T("contextWindow")} />
            </span>
          </div>
        </fieldset>
        <fieldset>
          <legend>Approval rules: ask me before</legend>
          <div class="row checks">
            ${Kn.map($=>c`<label class="check"><input
                  type="checkbox"
                  .checked=${e.approve.has($)}
                  @change=${M=>{let H=new Set(e.approve);M.target.checked?H.add($):H.delete($),e={...e,approve:H},v()}}
                /><code>${$}</code></label>`)}
          </div>
          <label for="new-paths">Only for these paths (comma-separated; file tools)</label>
          <input id="new-paths" placeholder="every path" .value=${e.approvePaths} @input=${T("approvePaths")} />
        </fieldset>
        <fieldset>
          <legend>Placement</legend>
          <div class="row">
            <span class="cell">
              <label for="new-location">Location hint</label>
              <select id="new-location" .value=${e.locationHint} @change=${T("locationHint")}>
                <option value="">automatic</option>
                ${Gn.map($=>c`<option value=${$} ?selected=${$===e.locationHint}>${$}</option>`)}
              </select>
            </span>
            <span class="cell">
              <label for="new-jurisdiction">Jurisdiction</label>
              <select id="new-jurisdiction" .value=${e.jurisdiction} @change=${T("jurisdiction")}>
                <option value="">none</option>
                <option value="eu" ?selected=${e.jurisdiction==="eu"}>eu</option>
                <option value="fedramp" ?selected=${e.jurisdiction==="fedramp"}>fedramp</option>
              </select>
            </span>
          </div>
        </fieldset>
        <button type="submit" ?disabled=${r}>New session</button>
        <p class="error" role="alert">${i}</p>
      </form>
      <h2>Sessions</h2>
      ${O()}
    `},O=()=>g&&!o?c`<p class="error" role="alert">${g}</p>`:o?o.length===0?c`<p class="muted empty">No sessions yet. Start one above: the Demo preset works offline, with no API key.</p>`:c`<ul class="sessions" aria-label="Your sessions">
      ${fe(o,k=>k.id,k=>c`<li data-id=${k.id}>
          <a href=${`/s/${k.id}`} data-nav>${k.title||"Untitled session"}</a>
          ${st(k.status)} ${k.openTurn?c`<span class="badge">turn open</span>`:y}
          ${k.pendingApprovals.length?c`<span class="badge approvals" data-state="waiting_approval">${k.pendingApprovals.length} approval${k.pendingApprovals.length===1?"":"s"} waiting</span>`:y}
          ${rt(k)}
          <span class="muted">${k.highWater} events · updated ${new Date(k.updatedAt).toLocaleString()}</span>
        </li>`)}
      ${l?c`<li><button type="button" class="link" @click=${()=>{w(!0)}}>More</button></li>`:y}
    </ul>
    ${g?c`<p class="error" role="alert">${g}</p>`:y}`:c`<p class="muted">Loading…</p>`;v(),b(),w();let F=setInterval(()=>{document.visibilityState==="visible"&&w()},Bn);return()=>{h=!0,clearInterval(F)}}we();export{Qn as formOptions};
